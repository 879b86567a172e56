/* Options as data: the parser and the --help writer of rpl/parse_options.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/parse_options.h"

#define MAX_ENTRIES  160 /* of a command, its included tables and the common options */
#define NAME_MAX_LEN 64
#define HELP_COLUMN  26 /* where the help text of an option starts */
#define HELP_WIDTH   80

/* The options every command takes. */
typedef struct common_opts {
    unsigned verbose;
    bool quiet, help;
} common_opts;

static const rpl_option common_options[] = {
    OPT_COUNT('v', "verbose", RPL_FIELD(common_opts, verbose),
              "more detail on stderr (repeatable)"),
    OPT_BOOL('q', "quiet", RPL_FIELD(common_opts, quiet), "errors only"),
    OPT_BOOL('h', "help", RPL_FIELD(common_opts, help), "this help"),
    OPT_END(),
};

/* One parse: the entries of the command (includes resolved), then the common ones. */
typedef struct parser {
    const rpl_command *cmd;
    const rpl_option *entries[MAX_ENTRIES];
    size_t nentries, ncommand; /* entries[0, ncommand) are the command's */
    void *base;
    common_opts common;
} parser;

int rpl_cli_usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("rocm-perf: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return RPL_EXIT_INPUT;
}

int rpl_cli_fail(int status)
{
    const rpl_error *e = rpl_error_last();

    fprintf(stderr, "rocm-perf: %s\n", e->message[0] ? e->message : "unknown error");
    return rpl_exit_code(status);
}

int rpl_cli_check_output(const char *opt, const char *path)
{
    const char *slash = strrchr(path, '/');
    struct stat st;
    char *dir;
    int ok;

    if (!path[0])
        return rpl_cli_usage_error("%s needs a file name", opt);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return rpl_cli_usage_error("%s '%s' is a folder, not a file", opt, path);
    if (!slash)
        return 0;
    dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
    if (!dir)
        return rpl_cli_fail(rpl_error_oom());
    ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    if (!ok)
        rpl_cli_usage_error("%s '%s': the folder '%s' does not exist", opt, path, dir);
    free(dir);
    return ok ? 0 : RPL_EXIT_INPUT;
}

/* "--name" or "-c", for messages. */
static const char *name_of(const rpl_option *opt, char buf[NAME_MAX_LEN])
{
    if (opt->long_name)
        snprintf(buf, NAME_MAX_LEN, "--%s", opt->long_name);
    else
        snprintf(buf, NAME_MAX_LEN, "-%c", opt->short_name);
    return buf;
}

/* The entries of table `t` from out[n] on, included tables in place; the new count. */
static size_t flatten(const rpl_option *t, const rpl_option **out, size_t n)
{
    for (; t && t->type != RPL_OPT_END && n < MAX_ENTRIES; t++) {
        if (t->type == RPL_OPT_INCLUDE)
            n = flatten(t->include, out, n);
        else
            out[n++] = t;
    }
    return n;
}

static void *field(void *base, size_t offset)
{
    return (char *)base + offset;
}

/* ---- numbers ---------------------------------------------------------------- */

static int number_error(const rpl_option *o, const char *arg)
{
    char b[NAME_MAX_LEN];

    switch (o->type) {
    case RPL_OPT_UINT:
        if (o->lo == 0 && o->hi == 0)
            return rpl_cli_usage_error("%s wants a whole number, not '%s'", name_of(o, b), arg);
        return rpl_cli_usage_error("%s wants a whole number from %.0f to %.0f, not '%s'",
                                   name_of(o, b), o->lo, o->hi, arg);
    case RPL_OPT_SIZE:
        return rpl_cli_usage_error("%s wants a size in bytes from %.0f to %.0f (or 48k, "
                                   "1M: powers of 1024), not '%s'",
                                   name_of(o, b), o->lo, o->hi, arg);
    case RPL_OPT_DURATION:
        return rpl_cli_usage_error("%s wants seconds from %g to %g (or 500ms, 2m, 1h), "
                                   "not '%s'",
                                   name_of(o, b), o->lo, o->hi, arg);
    default:
        if (!(o->flags & RPL_OPT_OPEN))
            return rpl_cli_usage_error("%s wants a number from %g to %g, not '%s'", name_of(o, b),
                                       o->lo, o->hi, arg);
        return rpl_cli_usage_error(
            "%s wants a value between %g and %g%s, not '%s'", name_of(o, b), o->lo, o->hi,
            o->type == RPL_OPT_FRACTION ? " (or a percentage like 3%)" : "", arg);
    }
}

/* The factor of a unit suffix, 0 when `unit` is none this type takes. */
static double unit_factor(rpl_opt_type type, const char *unit)
{
    static const struct {
        rpl_opt_type type;
        const char *unit;
        double factor;
    } units[] = {
        {RPL_OPT_FRACTION, "%", 0.01},      {RPL_OPT_DURATION, "s", 1},
        {RPL_OPT_DURATION, "ms", 1e-3},     {RPL_OPT_DURATION, "m", 60},
        {RPL_OPT_DURATION, "min", 60},      {RPL_OPT_DURATION, "h", 3600},
        {RPL_OPT_SIZE, "k", 1024.0},        {RPL_OPT_SIZE, "K", 1024.0},
        {RPL_OPT_SIZE, "M", 1024.0 * 1024}, {RPL_OPT_SIZE, "G", 1024.0 * 1024 * 1024},
    };

    if (!*unit)
        return 1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (units[i].type == type && strcmp(units[i].unit, unit) == 0)
            return units[i].factor;
    return 0;
}

int rpl_parse_number(const rpl_option *opt, const char *arg, double *out)
{
    bool whole = opt->type == RPL_OPT_UINT || opt->type == RPL_OPT_SIZE;
    bool open = (opt->flags & RPL_OPT_OPEN) != 0;
    char *end;
    double v, factor;

    errno = 0;
    v = strtod(arg, &end);
    factor = end == arg ? 0 : unit_factor(opt->type, end);
    v *= factor;
    if (errno || factor == 0 || !isfinite(v) || (whole && (v != floor(v) || arg[0] == '-')))
        return number_error(opt, arg);
    if (opt->lo == 0 && opt->hi == 0 ? v < 0
        : open                       ? !(v > opt->lo && v < opt->hi)
                                     : !(v >= opt->lo && v <= opt->hi))
        return number_error(opt, arg);
    *out = v;
    return 0;
}

/* A whole number into an unsigned field of 4 or 8 bytes; exact beyond 2^53 where it can be. */
static int store_whole(const rpl_option *opt, void *dst, const char *arg, double v)
{
    unsigned long long u = (unsigned long long)v;
    char *end;

    if (opt->type == RPL_OPT_UINT) {
        errno = 0;
        u = strtoull(arg, &end, 10);
        if (errno || *end)
            u = (unsigned long long)v; /* "1e3", "2.0" */
    }
    if (opt->size == sizeof(uint32_t)) {
        if (u > UINT32_MAX)
            return number_error(opt, arg);
        *(uint32_t *)dst = (uint32_t)u;
    } else {
        *(uint64_t *)dst = (uint64_t)u;
    }
    return 0;
}

static int store_number(const rpl_option *opt, void *dst, const char *arg)
{
    double v;
    int rc = rpl_parse_number(opt, arg, &v);

    if (rc)
        return rc;
    if (opt->type == RPL_OPT_UINT || opt->type == RPL_OPT_SIZE)
        return store_whole(opt, dst, arg, v);
    if (opt->type == RPL_OPT_DURATION && opt->size == sizeof(int))
        *(int *)dst = (int)ceil(v * 1000); /* milliseconds; a limit is never rounded to 0 */
    else
        *(double *)dst = v;
    return 0;
}

/* ---- applying one option ---------------------------------------------------- */

/* A list is an array of its own (NULL-terminated, its size the limit), or grown by realloc. */
static int add_to_list(const rpl_option *opt, void *base, const char *arg)
{
    size_t *n = field(base, opt->count);
    const char **list;
    char b[NAME_MAX_LEN];

    if (opt->size > sizeof(char *)) {
        list = field(base, opt->offset);
        if (*n + 1 >= opt->size / sizeof(char *))
            return rpl_cli_usage_error("at most %zu %s options", opt->size / sizeof(char *) - 1,
                                       name_of(opt, b));
    } else {
        const char ***grown = field(base, opt->offset);
        if (!(list = realloc(*grown, (*n + 2) * sizeof(*list)))) {
            fputs("rocm-perf: out of memory\n", stderr);
            return RPL_EXIT_ENV;
        }
        *grown = list;
    }
    list[(*n)++] = arg;
    list[*n] = NULL;
    return 0;
}

static int apply(const rpl_option *opt, void *base, const char *arg)
{
    void *dst = field(base, opt->offset);
    char b[NAME_MAX_LEN];
    int rc = 0;

    if ((opt->flags & RPL_OPT_NONEMPTY) && arg && !arg[0])
        return rpl_cli_usage_error("%s needs a %s, not ''", name_of(opt, b),
                                   opt->argh ? opt->argh : "value");
    switch (opt->type) {
    case RPL_OPT_BOOL:
        *(bool *)dst = !(opt->flags & RPL_OPT_NEGATE);
        break;
    case RPL_OPT_COUNT:
        (*(unsigned *)dst)++;
        break;
    case RPL_OPT_STRING:
        *(const char **)dst = arg;
        break;
    case RPL_OPT_STRING_LIST:
        rc = add_to_list(opt, base, arg);
        break;
    case RPL_OPT_CALLBACK:
        rc = opt->fn(dst, opt, arg);
        break;
    default:
        rc = store_number(opt, dst, arg);
        break;
    }
    if (rc == 0 && opt->seen)
        *(bool *)field(base, opt->seen - 1) = true;
    return rc;
}

static bool takes_value(const rpl_option *opt)
{
    return opt->type != RPL_OPT_BOOL && opt->type != RPL_OPT_COUNT;
}

void rpl_cli_log_option(int c)
{
    rpl_log_level level = rpl_log_get_level();

    if (c == 'v' && level < RPL_LOG_TRACE)
        rpl_log_set_level((rpl_log_level)(level + 1));
    else if (c == 'q')
        rpl_log_set_level(RPL_LOG_ERROR);
}

/* ---- finding options -------------------------------------------------------- */

static void *base_of(parser *p, size_t i)
{
    return i < p->ncommand ? p->base : &p->common;
}

/* The entry of "--name" (an unambiguous prefix will do); -1 unknown, -2 ambiguous. */
static long find_long(const rpl_option *const *entries, size_t n, const char *name, size_t len)
{
    long found = -1, prefixes = 0;

    for (size_t i = 0; i < n; i++) {
        const char *l = entries[i]->long_name;
        if (!l || strncmp(l, name, len) != 0)
            continue;
        if (l[len] == '\0')
            return (long)i;
        found = prefixes++ ? found : (long)i;
    }
    return prefixes > 1 ? -2 : found;
}

static long find_short(const rpl_option *const *entries, size_t n, int c)
{
    for (size_t i = 0; i < n; i++)
        if (entries[i]->short_name == c)
            return (long)i;
    return -1;
}

/*
 * An option this command does not know: named as one of the foreign
 * command's when it is, else unknown (or ambiguous: found == -2).
 */
static int refuse(const parser *p, const char *name, size_t len, int c, long found)
{
    const rpl_option *foreign[MAX_ENTRIES];
    size_t n = flatten(p->cmd->foreign, foreign, 0);
    char word[80];

    if (c)
        snprintf(word, sizeof(word), "-%c", c);
    else
        snprintf(word, sizeof(word), "--%.*s", (int)(len < 70 ? len : 70), name);
    if (found == -2)
        return rpl_cli_usage_error("%s: ambiguous option '%s'; see 'rocm-perf %s --help'",
                                   p->cmd->name, word, p->cmd->name);
    if ((c ? find_short(foreign, n, c) : find_long(foreign, n, name, len)) >= 0)
        return rpl_cli_usage_error("'%s' is an option of 'rocm-perf %s', not of '%s'", word,
                                   p->cmd->foreign_name, p->cmd->name);
    return rpl_cli_usage_error("%s: unknown option '%s'; see 'rocm-perf %s --help'", p->cmd->name,
                               word, p->cmd->name);
}

/* ---- the parse -------------------------------------------------------------- */

static int missing_value(const parser *p, const rpl_option *opt)
{
    char b[NAME_MAX_LEN];

    return rpl_cli_usage_error("%s: "
                               "%s needs a value (%s); see 'rocm-perf %s --help'",
                               p->cmd->name, name_of(opt, b), opt->argh ? opt->argh : "",
                               p->cmd->name);
}

/* Apply entry i with `arg`; a list of words also takes the words after it. */
static int take(parser *p, size_t i, const char *arg, int argc, char **argv, int *next)
{
    const rpl_option *opt = p->entries[i];
    int rc = apply(opt, base_of(p, i), arg);

    while (rc == 0 && (opt->flags & RPL_OPT_WORDS) && *next < argc && argv[*next][0] != '-')
        rc = apply(opt, base_of(p, i), argv[(*next)++]);
    if (rc == 0 && i >= p->ncommand)
        rpl_cli_log_option(opt->short_name);
    if (rc == 0 && p->common.help) {
        rpl_parse_options_usage(p->cmd, p->base, stdout);
        return RPL_EXIT_OK;
    }
    return rc ? rc : -1;
}

/* "--name", "--name=value" or "--name value": -1 done, else an exit code. */
static int parse_long(parser *p, int argc, char **argv, int *next)
{
    const char *word = argv[*next - 1] + 2, *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    long i = find_long(p->entries, p->nentries, word, len);

    if (i < 0)
        return refuse(p, word, len, 0, i);
    if (!takes_value(p->entries[i]) && eq)
        return rpl_cli_usage_error("%s: --%s takes no value", p->cmd->name,
                                   p->entries[i]->long_name);
    if (!takes_value(p->entries[i]))
        return take(p, (size_t)i, NULL, argc, argv, next);
    if (eq)
        return take(p, (size_t)i, eq + 1, argc, argv, next);
    if (*next >= argc)
        return missing_value(p, p->entries[i]);
    (*next)++;
    return take(p, (size_t)i, argv[*next - 1], argc, argv, next);
}

/* "-c", "-cvalue", "-c value" and bundles "-vq". */
static int parse_short(parser *p, int argc, char **argv, int *next)
{
    const char *s = argv[*next - 1] + 1;
    int rc = -1;

    for (; *s && rc < 0; s++) {
        long i = find_short(p->entries, p->nentries, *s);
        if (i < 0)
            return refuse(p, NULL, 0, *s, i);
        if (!takes_value(p->entries[i])) {
            rc = take(p, (size_t)i, NULL, argc, argv, next);
        } else if (s[1]) {
            return take(p, (size_t)i, s + 1, argc, argv, next);
        } else {
            if (*next >= argc)
                return missing_value(p, p->entries[i]);
            (*next)++;
            return take(p, (size_t)i, argv[*next - 1], argc, argv, next);
        }
    }
    return rc;
}

/* Move av[from] down to av[to], the words between one up: every word stays in argv. */
static void move_down(char **av, int from, int to)
{
    char *w = av[from];

    memmove(av + to + 1, av + to, (size_t)(from - to) * sizeof(*av));
    av[to] = w;
}

/*
 * The words are reordered as GNU getopt does, none lost (a command may
 * re-execute rocm-perf with the whole argv): the options and their values
 * first, then "--" when given, then the other arguments in their order,
 * which end argv and so its NULL.
 */
static int parse(const rpl_command *cmd, void *base, int *argc, char ***argv, bool *dashdash)
{
    parser p = {.cmd = cmd, .base = base};
    char **av = *argv;
    int ac = *argc, next = 1, nopt = 0, first, rc = -1;
    bool keep = (cmd->flags & RPL_PARSE_KEEP_DASHDASH) && !(cmd->flags & RPL_PARSE_TRAILING);

    *dashdash = false;
    p.ncommand = flatten(cmd->options, p.entries, 0);
    p.nentries = flatten(common_options, p.entries, p.ncommand);
    while (next < ac && rc < 0 && !*dashdash) {
        int start = next;
        const char *w = av[next++];
        bool is_arg = w[0] != '-' || !w[1];

        if (strcmp(w, "--") == 0) {
            move_down(av, start, 1 + nopt);
            *dashdash = true;
        } else if (is_arg && (cmd->flags & RPL_PARSE_STOP_AT_ARG)) {
            break;
        } else if (!is_arg) {
            rc = w[1] == '-' ? parse_long(&p, ac, av, &next) : parse_short(&p, ac, av, &next);
            for (int k = start; k < next; k++)
                move_down(av, k, 1 + nopt++);
        }
    }
    first = 1 + nopt + (*dashdash && !keep);
    *argv = av + first;
    *argc = ac - first;
    return rc;
}

/* `word` is one of the command's own long options ("--json", "--out=D"), spelt out. */
static bool is_own_long_option(const rpl_command *cmd, const char *word)
{
    const rpl_option *entries[MAX_ENTRIES];
    size_t n = flatten(cmd->options, entries, 0);

    if (strncmp(word, "--", 2) != 0 || !word[2])
        return false;
    word += 2;
    for (size_t i = 0; i < n; i++) {
        const char *l = entries[i]->long_name;
        size_t len = l ? strlen(l) : 0;
        if (l && strncmp(word, l, len) == 0 && (word[len] == '\0' || word[len] == '='))
            return true;
    }
    return false;
}

/*
 * RPL_PARSE_TRAILING without "--": av[0] is the program; the command's long
 * options after it are the command's when they end the line and the
 * program's arguments before them hold no option (else it is not clear whose
 * they are).  *ac becomes the count of the program and its arguments.
 */
static int parse_trailing(const rpl_command *cmd, void *base, int *ac, char **av)
{
    int first = 1, rc, nsub;
    char **sub, **left;
    bool dashdash;

    for (int i = 1; i < *ac; i++)
        if (strcmp(av[i], "--") == 0)
            return rpl_cli_usage_error("%s: unexpected argument '%s' before '--'", cmd->name,
                                       av[0]);
    while (first < *ac && !is_own_long_option(cmd, av[first]))
        first++;
    if (first == *ac)
        return -1;
    for (int i = 1; i < first; i++)
        if (av[i][0] == '-')
            return rpl_cli_usage_error(
                "%s: '%s' after the program could be the program's own option; put "
                "rocm-perf's options before the program, and the program after '--'",
                cmd->name, av[first]);
    /* The parser wants a command name first; parse av[first..ac) alone. */
    if (!(sub = calloc((size_t)(*ac - first + 2), sizeof(*sub))))
        return rpl_cli_fail(rpl_error_oom());
    sub[0] = (char *)cmd->name;
    memcpy(sub + 1, av + first, (size_t)(*ac - first) * sizeof(*sub));
    nsub = *ac - first + 1;
    left = sub;
    rc = parse(cmd, base, &nsub, &left, &dashdash); /* no "--" here: refused above */
    if (rc < 0 && nsub > 0)
        rc = rpl_cli_usage_error(
            "%s: '%s' follows rocm-perf's options after the program; put rocm-perf's "
            "options before the program, and the program after '--'",
            cmd->name, left[0]);
    /* The values the options kept point into argv, not into sub. */
    free(sub);
    /* The program's arguments end where the trailing options begin. */
    av[first] = NULL;
    *ac = first;
    return rc;
}

int rpl_parse_options(const rpl_command *cmd, void *base, int *argc, char ***argv)
{
    bool dashdash;
    int rc = parse(cmd, base, argc, argv, &dashdash);

    if (rc < 0 && (cmd->flags & RPL_PARSE_TRAILING) && !dashdash && *argc > 0)
        rc = parse_trailing(cmd, base, argc, *argv);
    return rc;
}

/* ---- --help ----------------------------------------------------------------- */

/* The field's value before parsing, as "{}" in a help text shows it. */
static void default_text(char *buf, size_t size, const rpl_option *o, const void *base)
{
    const void *v = (const char *)base + o->offset;

    if (!base || !o->size)
        snprintf(buf, size, "?");
    else if (o->type == RPL_OPT_UINT || o->type == RPL_OPT_SIZE)
        snprintf(buf, size, "%llu",
                 o->size == sizeof(uint32_t) ? (unsigned long long)*(const uint32_t *)v
                                             : (unsigned long long)*(const uint64_t *)v);
    else if (o->type == RPL_OPT_DURATION && o->size == sizeof(int))
        snprintf(buf, size, "%g", *(const int *)v / 1000.0);
    else if (o->type == RPL_OPT_NUMBER || o->type == RPL_OPT_FRACTION ||
             o->type == RPL_OPT_DURATION)
        snprintf(buf, size, "%g", *(const double *)v);
    else if (o->type == RPL_OPT_STRING)
        snprintf(buf, size, "%s", *(const char *const *)v ? *(const char *const *)v : "none");
    else
        snprintf(buf, size, "?");
}

/* The help text wrapped from column HELP_COLUMN on; '\n' breaks a line. */
static void print_wrapped(FILE *out, const char *text)
{
    int col = HELP_COLUMN;
    bool line_start = true;

    while (*text) {
        size_t n = strcspn(text, " \n");
        if (*text == ' ') {
            text++;
            continue;
        }
        if (*text == '\n' || (!line_start && col + 1 + (int)n > HELP_WIDTH)) {
            fprintf(out, "\n%*s", HELP_COLUMN, "");
            col = HELP_COLUMN;
            line_start = true;
            text += *text == '\n';
            continue;
        }
        if (!line_start) {
            fputc(' ', out);
            col++;
        }
        fwrite(text, 1, n, out);
        col += (int)n;
        text += n;
        line_start = false;
    }
    fputc('\n', out);
}

static void print_option(FILE *out, const rpl_option *o, const void *base)
{
    char spec[128], help[1024], def[64];
    const char *brace = o->help ? strstr(o->help, "{}") : NULL;
    int col;

    if (o->short_name && o->long_name)
        col = snprintf(spec, sizeof(spec), "  -%c, --%s", o->short_name, o->long_name);
    else if (o->short_name)
        col = snprintf(spec, sizeof(spec), "  -%c", o->short_name);
    else
        col = snprintf(spec, sizeof(spec), "  --%s", o->long_name);
    if (o->argh)
        col += snprintf(spec + col, sizeof(spec) - (size_t)col, " %s", o->argh);
    if (col > HELP_COLUMN - 2)
        fprintf(out, "%s\n%*s", spec, HELP_COLUMN, "");
    else
        fprintf(out, "%-*s", HELP_COLUMN, spec);
    if (brace) {
        default_text(def, sizeof(def), o, base);
        snprintf(help, sizeof(help), "%.*s%s%s", (int)(brace - o->help), o->help, def, brace + 2);
    } else {
        snprintf(help, sizeof(help), "%s", o->help ? o->help : "");
    }
    print_wrapped(out, help);
}

void rpl_parse_options_usage(const rpl_command *cmd, const void *base, FILE *out)
{
    const rpl_option *entries[MAX_ENTRIES];
    size_t n = flatten(cmd->options, entries, 0);

    fputs("usage: ", out);
    for (const char *u = cmd->usage; *u; u++) {
        fputc(*u, out);
        if (*u == '\n')
            fputs("       ", out);
    }
    fputs("\n\n", out);
    if (cmd->description)
        fprintf(out, "%s\n\n", cmd->description);
    for (size_t i = 0; i < n; i++) {
        if (entries[i]->type == RPL_OPT_GROUP)
            fprintf(out, "%s%s\n", i ? "\n" : "", entries[i]->help);
        else
            print_option(out, entries[i], base);
    }
    for (const rpl_option *c = common_options; c->type != RPL_OPT_END; c++)
        print_option(out, c, NULL);
    if (cmd->notes)
        fprintf(out, "\n%s\n", cmd->notes);
    if (cmd->exit_codes)
        fprintf(out, "\nExit codes: %s\n", cmd->exit_codes);
}
