/* The option parser of src/core/parse_options.c: every kind, ranges, units, lists, errors, --help.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/log.h"
#include "rpl/parse_options.h"

#define ERR_FILE RPL_TEST_TMP "/parse-options-stderr.txt"
#define OUT_FILE RPL_TEST_TMP "/parse-options-help.txt"

typedef struct opts {
    bool flag, seen_ratio;
    unsigned count, reps;
    uint64_t index;
    double ratio, tol, timeout_s;
    int timeout_ms;
    unsigned bytes;
    const char *name, *file;
    const char *inc[3];
    size_t ninc;
    const char **words;
    size_t nwords;
    int lang;
} opts;

static int parse_lang(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    if (strcmp(arg, "hip") != 0 && strcmp(arg, "cuda") != 0)
        return rpl_cli_usage_error("--lang wants hip or cuda, not '%s'", arg);
    *(int *)value = arg[0] == 'h' ? 1 : 2;
    return 0;
}

#define F(m) RPL_FIELD(opts, m)

static const rpl_option table[] = {
    OPT_GROUP("Group:"),
    OPT_BOOL(0, "flag", F(flag), "a flag"),
    OPT_COUNT('c', "count", F(count), "counts"),
    OPT_UINT('n', "reps", F(reps), 1, 100, "N", "repetitions (default {})"),
    OPT_UINT(0, "index", F(index), 0, 0, "I", "any whole number"),
    {.type = RPL_OPT_NUMBER,
     .long_name = "ratio",
     F(ratio),
     .lo = 0,
     .hi = 2,
     .argh = "R",
     .help = "a ratio",
     RPL_SEEN(opts, seen_ratio)},
    OPT_FRACTION(0, "tolerance", F(tol), 0, 1, "T", "a fraction or percentage"),
    OPT_DURATION(0, "timeout", F(timeout_ms), 0.001, 86400, "S", "milliseconds field"),
    OPT_DURATION(0, "timeout-s", F(timeout_s), 1, 86400, "S", "seconds field"),
    OPT_SIZE(0, "bytes", F(bytes), 0, 1 << 24, "BYTES", "a size"),
    OPT_STRING('k', "name", F(name), "NAME", "a name"),
    OPT_FILENAME(0, "file", F(file), "FILE", "a file"),
    OPT_STRING_LIST('I', NULL, F(inc), offsetof(opts, ninc), "DIR", "includes"),
    {.type = RPL_OPT_STRING_LIST,
     .long_name = "words",
     F(words),
     .count = offsetof(opts, nwords),
     .flags = RPL_OPT_WORDS,
     .argh = "W...",
     .help = "words up to the next option"},
    OPT_CALLBACK(0, "lang", F(lang), parse_lang, "L", "hip or cuda"),
    OPT_END(),
};

static const rpl_option elsewhere[] = {
    OPT_STRING(0, "junit", .offset = 0, "F", "a report"),
    OPT_END(),
};

static const rpl_command cmd = {
    .name = "demo",
    .usage = "rocm-perf demo [options] ARG...\nrocm-perf demo --help",
    .description = "A demo command.",
    .options = table,
    .exit_codes = "0 ok, 2 bad usage.",
    .foreign = elsewhere,
    .foreign_name = "other",
};

/* Parse the words (after the command name) into *o; stderr is kept in *err. */
static int parse(const rpl_command *c, opts *o, char ***left, int *nleft, char **err, ...)
{
    static char *argv[32];
    va_list ap;
    int argc = 1, saved = dup(2), rc;
    FILE *f = freopen(ERR_FILE, "w", stderr);
    char **av = argv;
    long size;

    assert_non_null(f);
    argv[0] = "demo";
    va_start(ap, err);
    for (char *w; (w = va_arg(ap, char *)) != NULL;)
        argv[argc++] = w;
    va_end(ap);
    argv[argc] = NULL;
    rc = rpl_parse_options(c, o, &argc, &av);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    f = fopen(ERR_FILE, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    *err = calloc(1, (size_t)size + 1);
    assert_int_equal(fread(*err, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    if (left) {
        *left = av;
        *nleft = argc;
    }
    return rc;
}

/* The parse fails with exit 2 and one line holding `needle`. */
static void refused(opts *o, const char *needle, char *w1, char *w2)
{
    char *err = NULL;

    assert_int_equal(parse(&cmd, o, NULL, NULL, &err, w1, w2, NULL), 2);
    assert_non_null(strstr(err, needle));
    assert_int_equal(strncmp(err, "rocm-perf: ", 11), 0);
    assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
    free(err);
}

static void every_kind(void **state)
{
    opts o = {0};
    char **left, *err;
    int n;

    (void)state;
    assert_int_equal(parse(&cmd, &o, &left, &n, &err, "--flag", "-cc", "--count", "-n", "7",
                           "--index=18446744073709551615", "--ratio", "1.5", "--tolerance", "3%",
                           "--timeout", "1.5", "--timeout-s", "2m", "--bytes", "48k", "-kgemm",
                           "--file", "f.json", "-I", "a", "-Ib", "--lang=cuda", "pos", NULL),
                     -1);
    assert_string_equal(err, "");
    assert_true(o.flag);
    assert_int_equal(o.count, 3);
    assert_int_equal(o.reps, 7);
    assert_true(o.index == UINT64_MAX);
    assert_true(o.ratio == 1.5 && o.seen_ratio);
    assert_true(o.tol > 0.0299 && o.tol < 0.0301);
    assert_int_equal(o.timeout_ms, 1500);
    assert_true(o.timeout_s == 120);
    assert_int_equal(o.bytes, 48 * 1024);
    assert_string_equal(o.name, "gemm");
    assert_string_equal(o.file, "f.json");
    assert_int_equal(o.ninc, 2);
    assert_string_equal(o.inc[1], "b");
    assert_null(o.inc[2]);
    assert_int_equal(o.lang, 2);
    assert_int_equal(n, 1);
    assert_string_equal(left[0], "pos");
    free(err);
}

static void ranges_and_units(void **state)
{
    opts o = {0};

    (void)state;
    refused(&o, "--reps wants a whole number from 1 to 100, not '0'", "--reps", "0");
    refused(&o, "--reps wants a whole number from 1 to 100, not '101'", "-n", "101");
    refused(&o, "not '2.5'", "--reps", "2.5");
    refused(&o, "--index wants a whole number, not '-1'", "--index", "-1");
    refused(&o, "--ratio wants a number from 0 to 2, not '2.01'", "--ratio", "2.01");
    refused(&o, "--ratio wants a number", "--ratio", "nan");
    refused(&o, "--tolerance wants a value between 0 and 1 (or a percentage like 3%), not '100%'",
            "--tolerance", "100%");
    refused(&o, "not '0'", "--tolerance", "0");
    refused(&o, "--timeout wants seconds from 0.001 to 86400", "--timeout", "2d");
    refused(&o, "--bytes wants a size in bytes", "--bytes", "1.5");
    refused(&o, "--bytes wants a size in bytes", "--bytes", "17M");
    /* A whole number written as "1e2" is one. */
    {
        char *err;
        assert_int_equal(parse(&cmd, &o, NULL, NULL, &err, "--reps", "1e2", NULL), -1);
        assert_int_equal(o.reps, 100);
        free(err);
    }
}

static void number_parser_alone(void **state)
{
    const rpl_option minutes = OPT_DURATION(0, "wait", .offset = 0, 0, 7200, "S", "");
    const rpl_option bytes = OPT_SIZE(0, "mem", .offset = 0, 1, 1 << 30, "B", "");
    double v = -1;

    (void)state;
    assert_int_equal(rpl_parse_number(&minutes, "1h", &v), 0);
    assert_true(v == 3600);
    assert_int_equal(rpl_parse_number(&minutes, "250ms", &v), 0);
    assert_true(v == 0.25);
    assert_int_equal(rpl_parse_number(&bytes, "1G", &v), 0);
    assert_true(v == 1 << 30);
    v = -1;
    assert_int_equal(rpl_parse_number(&bytes, "2G", &v), 2);
    assert_int_equal(rpl_parse_number(&minutes, "3h", &v), 2);
    assert_int_equal(rpl_parse_number(&minutes, "1 h", &v), 2);
    assert_true(v == -1);
}

static void lists_repeat_and_take_words(void **state)
{
    opts o = {0};
    char **left, *err;
    int n;

    (void)state;
    assert_int_equal(parse(&cmd, &o, &left, &n, &err, "--words", "a", "b", "-k", "x", "--words",
                           "c", "tail", "--", "-k", NULL),
                     -1);
    /* --words takes the words up to an option: "tail" too, then "--" ends the options. */
    assert_int_equal(o.nwords, 4);
    assert_string_equal(o.words[3], "tail");
    assert_null(o.words[4]);
    assert_int_equal(n, 1);
    assert_string_equal(left[0], "-k");
    free(o.words);
    free(err);
    memset(&o, 0, sizeof(o));
    assert_int_equal(parse(&cmd, &o, NULL, NULL, &err, "-Ia", "-Ib", "-Ic", NULL), 2);
    assert_string_equal(err, "rocm-perf: at most 2 -I options\n");
    free(err);
}

static void dashdash_and_stop(void **state)
{
    rpl_command stop = cmd, keep = cmd;
    opts o = {0};
    char **left, *err;
    int n;

    (void)state;
    stop.flags = RPL_PARSE_STOP_AT_ARG;
    assert_int_equal(parse(&stop, &o, &left, &n, &err, "--flag", "app", "--flag", NULL), -1);
    assert_int_equal(n, 2);
    assert_string_equal(left[0], "app");
    assert_string_equal(left[1], "--flag");
    free(err);
    /* Without STOP_AT_ARG, options and arguments mix. */
    assert_int_equal(parse(&cmd, &o, &left, &n, &err, "a", "--flag", "b", "--", "--flag", NULL),
                     -1);
    assert_int_equal(n, 3);
    assert_string_equal(left[2], "--flag");
    free(err);
    keep.flags = RPL_PARSE_KEEP_DASHDASH;
    assert_int_equal(parse(&keep, &o, &left, &n, &err, "--flag", "--", "app", NULL), -1);
    assert_int_equal(n, 2);
    assert_string_equal(left[0], "--");
    free(err);
}

/* RPL_PARSE_TRAILING: the command's long options may also end the line after the program. */
static void trailing_options(void **state)
{
    rpl_command trail = cmd;
    opts o = {0};
    char **left, *err;
    int n;

    (void)state;
    trail.flags = RPL_PARSE_STOP_AT_ARG | RPL_PARSE_TRAILING;
    assert_int_equal(parse(&trail, &o, &left, &n, &err, "app", "x", "--name", "n", "-c", NULL), -1);
    assert_string_equal(o.name, "n");
    assert_int_equal(o.count, 1); /* short options are the command's once its run began */
    assert_int_equal(n, 2);
    assert_string_equal(left[0], "app");
    assert_string_equal(left[1], "x");
    assert_null(left[2]);
    free(err);
    /* Not spelt out, or a common option alone: the program's. */
    memset(&o, 0, sizeof(o));
    assert_int_equal(parse(&trail, &o, &left, &n, &err, "app", "--nam", "--quiet", NULL), -1);
    assert_int_equal(n, 3);
    assert_null(o.name);
    free(err);
    /* After "--" everything is the program's, and "--" is gone. */
    assert_int_equal(parse(&trail, &o, &left, &n, &err, "--", "app", "--flag", NULL), -1);
    assert_int_equal(n, 2);
    assert_string_equal(left[0], "app");
    assert_false(o.flag);
    free(err);
    assert_int_equal(parse(&trail, &o, NULL, NULL, &err, "app", "-x", "--flag", NULL), 2);
    assert_non_null(strstr(err, "demo: '--flag' after the program could be the program's own"));
    free(err);
    assert_int_equal(parse(&trail, &o, NULL, NULL, &err, "app", "--flag", "more", NULL), 2);
    assert_non_null(strstr(err, "demo: 'more' follows rocm-perf's options after the program"));
    free(err);
    assert_int_equal(parse(&trail, &o, NULL, NULL, &err, "app", "--", "x", NULL), 2);
    assert_string_equal(err, "rocm-perf: demo: unexpected argument 'app' before '--'\n");
    free(err);
}

/* An output path is checked before a long run: a folder, or a missing folder, is refused. */
static void output_paths(void **state)
{
    int saved = dup(2);
    FILE *f = freopen(ERR_FILE, "w", stderr);

    (void)state;
    assert_non_null(f);
    assert_int_equal(rpl_cli_check_output("--json", "r.json"), 0);
    assert_int_equal(rpl_cli_check_output("--json", RPL_TEST_TMP "/r.json"), 0);
    assert_int_equal(rpl_cli_check_output("--json", RPL_TEST_TMP), 2);
    assert_int_equal(rpl_cli_check_output("--json", RPL_TEST_TMP "/no-such-dir/r.json"), 2);
    assert_int_equal(rpl_cli_check_output("--json", ""), 2);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

/* Every word stays in argv (replay re-executes itself with it): options first, then the rest. */
static void argv_keeps_every_word(void **state)
{
    char *argv[] = {"demo", "a", "--name", "x", "b", "-c", "--", "-k", NULL};
    char **av = argv;
    int argc = 8;
    opts o = {0};

    (void)state;
    assert_int_equal(rpl_parse_options(&cmd, &o, &argc, &av), -1);
    assert_int_equal(argc, 3);
    assert_ptr_equal(av, argv + 5);
    assert_string_equal(argv[1], "--name");
    assert_string_equal(argv[2], "x");
    assert_string_equal(argv[3], "-c");
    assert_string_equal(argv[4], "--");
    assert_string_equal(av[0], "a");
    assert_string_equal(av[1], "b");
    assert_string_equal(av[2], "-k");
    assert_null(av[3]);
}

static void bad_command_lines(void **state)
{
    opts o = {0};

    (void)state;
    refused(&o, "demo: unknown option '--nope'; see 'rocm-perf demo --help'", "--nope", NULL);
    refused(&o, "demo: unknown option '-x'", "-x", NULL);
    refused(&o, "demo: ambiguous option '--time'", "--time", "1");
    refused(&o, "demo: --reps needs a value (N)", "--reps", NULL);
    refused(&o, "demo: -I needs a value (DIR)", "-I", NULL);
    refused(&o, "demo: --flag takes no value", "--flag=1", NULL);
    refused(&o, "--file needs a FILE, not ''", "--file", "");
    refused(&o, "--lang wants hip or cuda, not 'fortran'", "--lang", "fortran");
    refused(&o, "'--junit' is an option of 'rocm-perf other', not of 'demo'", "--junit", "x");
}

static void prefix_and_value_forms(void **state)
{
    opts o = {0};
    char *err;

    (void)state;
    /* An unambiguous prefix; a value that looks like an option is still the value. */
    assert_int_equal(parse(&cmd, &o, NULL, NULL, &err, "--fla", "--name", "--flag", NULL), -1);
    assert_true(o.flag);
    assert_string_equal(o.name, "--flag");
    free(err);
}

static void verbosity_in_order(void **state)
{
    opts o = {0};
    char *err;

    (void)state;
    rpl_log_set_level(RPL_LOG_WARN);
    assert_int_equal(parse(&cmd, &o, NULL, NULL, &err, "-vv", NULL), -1);
    assert_int_equal(rpl_log_get_level(), RPL_LOG_DEBUG);
    free(err);
    assert_int_equal(parse(&cmd, &o, NULL, NULL, &err, "-q", "--verbose", NULL), -1);
    assert_int_equal(rpl_log_get_level(), RPL_LOG_WARN);
    free(err);
    rpl_log_set_level(RPL_LOG_WARN);
}

static char *help_text(void)
{
    opts o = {.reps = 30};
    FILE *f = fopen(OUT_FILE, "w+");
    char *text;
    long size;

    assert_non_null(f);
    rpl_parse_options_usage(&cmd, &o, f);
    size = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)size + 1);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    return text;
}

static void help_from_the_table(void **state)
{
    char *h = help_text(), *line;

    (void)state;
    assert_int_equal(strncmp(h,
                             "usage: rocm-perf demo [options] ARG...\n"
                             "       rocm-perf demo --help\n\nA demo command.\n\nGroup:\n",
                             strlen("usage: rocm-perf demo [options] ARG...\n")),
                     0);
    assert_non_null(strstr(h, "\n  -n, --reps N            repetitions (default 30)\n"));
    assert_non_null(strstr(h, "\n  -I DIR                  includes\n"));
    assert_non_null(strstr(h, "\n  -v, --verbose           more detail on stderr (repeatable)\n"));
    assert_non_null(strstr(h, "\n  -h, --help              this help\n"));
    assert_non_null(strstr(h, "\nExit codes: 0 ok, 2 bad usage.\n"));
    for (line = h; *line; line = strchr(line, '\n') + 1)
        assert_true(strcspn(line, "\n") < 80);
    free(h);
}

static void help_flag_prints_and_exits_0(void **state)
{
    opts o = {0};
    char *err;
    int saved = dup(1);
    FILE *f = freopen(OUT_FILE, "w", stdout);

    (void)state;
    assert_non_null(f);
    assert_int_equal(parse(&cmd, &o, NULL, NULL, &err, "--help", "--nope", NULL), 0);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_string_equal(err, "");
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind),
        cmocka_unit_test(ranges_and_units),
        cmocka_unit_test(number_parser_alone),
        cmocka_unit_test(lists_repeat_and_take_words),
        cmocka_unit_test(dashdash_and_stop),
        cmocka_unit_test(trailing_options),
        cmocka_unit_test(output_paths),
        cmocka_unit_test(argv_keeps_every_word),
        cmocka_unit_test(bad_command_lines),
        cmocka_unit_test(prefix_and_value_forms),
        cmocka_unit_test(verbosity_in_order),
        cmocka_unit_test(help_from_the_table),
        cmocka_unit_test(help_flag_prints_and_exits_0),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
