/*
 * rocm-perf baseline update|accept|trend|show|diff: record a kernel test's
 * baseline (the section its input measures; the other section stays), record
 * an intended move, look at its history's change points, print one, compare
 * two.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gate_cli.h"
#include "rpl/error.h"
#include "rpl/gate_measure.h"
#include "rpl/trend.h"

#define BASELINE_USAGE                                                                             \
    "rocm-perf baseline update --test NAME --baseline-dir DIR [--arch A]\n"                        \
    "                          [--tolerance T] [--warmup W] [--kernel REGEX]\n"                    \
    "                          [--repetitions N]\n"                                                \
    "                          (--static FILE... [--block N] | --trace DB... |\n"                  \
    "                           -- APP ARGS...)\n"                                                 \
    "rocm-perf baseline accept --test NAME --baseline-dir DIR --reason TEXT\n"                     \
    "                          [the options and input of update]\n"                                \
    "rocm-perf baseline trend --test NAME --baseline-dir DIR [--arch A]\n"                         \
    "                         [--kernel REGEX] [--json] [--permutations P]\n"                      \
    "                         [--alpha A] [--seed S]\n"                                            \
    "rocm-perf baseline show FILE\n"                                                               \
    "rocm-perf baseline diff A B"

#define BASELINE_DESCRIPTION                                                                       \
    "update  measure the input as 'rocm-perf gate' does and write its section\n"                   \
    "        (static or runtime) of DIR/<arch>/<test>.json, keeping the other; the\n"              \
    "        runtime history gains this run's median (the last 10 are kept).\n"                    \
    "        Prints what changed.  The file is read, changed and written under\n"                  \
    "        a lock on its directory; another update waits for it up to\n"                         \
    "        ROCM_PERF_LOCK_TIMEOUT seconds (default 60), then exits 3.\n"                         \
    "        Each update adds an entry to the file's history: date, the commit of\n"               \
    "        the repository holding DIR, device, driver and GPU clock state, each\n"               \
    "        kernel's median (the last 1000 are kept).\n"                                          \
    "accept  an update that moves the baseline on purpose: the history entry\n"                    \
    "        carries --reason, and each kernel's history_ns restarts at the new\n"                 \
    "        median; trend and the HTML report show it\n"                                          \
    "trend   per kernel the history with its change points (E-Divisive on the\n"                   \
    "        log medians, permutation test: P 199, alpha 0.01, segments of at\n"                   \
    "        least 5 entries), where each began (entry, commit range), and a\n"                    \
    "        slow drift; --json prints docs/schemas/trend.schema.json.  --arch\n"                  \
    "        is needed when DIR holds the test for several architectures\n"                        \
    "show    print a baseline file readably\n"                                                     \
    "diff    print the differences between two baseline files (exit 0 either way)"

#define BASELINE_EXIT_CODES                                                                        \
    "0 ok, 2 bad usage or a corrupt baseline (left untouched),\n"                                  \
    "3 environment, 77 no GPU (APP input)."

/* The help every subcommand shows: the whole command's. */
#define BASELINE_HELP                                                                              \
    .usage = BASELINE_USAGE, .description = BASELINE_DESCRIPTION, .exit_codes = BASELINE_EXIT_CODES

typedef struct trend_args {
    const char *test, *dir, *arch;
    bool json;
    rpl_trend_opts o;
} trend_args;

#define T(m) RPL_FIELD(trend_args, m)

static const rpl_option trend_options[] = {
    OPT_STRING(0, "test", T(test), "NAME", "the kernel test"),
    OPT_STRING(0, "baseline-dir", T(dir), "DIR", "the baselines, DIR/<arch>/<test>.json"),
    OPT_STRING(0, "arch", T(arch), "A", "the architecture, when DIR holds several"),
    OPT_STRING('k', "kernel", T(o.kernel_regex), "REGEX", "only these kernels"),
    OPT_BOOL(0, "json", T(json), "print docs/schemas/trend.schema.json"),
    OPT_UINT(0, "permutations", T(o.cp.permutations), 19, 100000, "P",
             "permutations of the change-point test (default 199)"),
    OPT_NUMBER_OPEN(0, "alpha", T(o.cp.alpha), 0, 0.5, "A",
                    "significance of a change point (default 0.01)"),
    OPT_UINT(0, "seed", T(o.cp.seed), 0, 0, "S", "permutation seed"),
    OPT_END(),
};

static const rpl_option update_options[] = {
    OPT_INCLUDE(gate_measure_options),
    OPT_INCLUDE(gate_accept_options),
    OPT_END(),
};

/* `baseline --help`: every subcommand's options. */
static const rpl_option baseline_options[] = {
    OPT_GROUP("update and accept:"),
    OPT_INCLUDE(update_options),
    OPT_GROUP("trend:"),
    OPT_INCLUDE(trend_options),
    OPT_END(),
};

static const rpl_command baseline_command = {
    .name = "baseline",
    BASELINE_HELP,
    .options = baseline_options,
};

static const rpl_command update_command = {
    .name = "baseline update",
    BASELINE_HELP,
    .options = update_options,
    .flags = RPL_PARSE_STOP_AT_ARG | RPL_PARSE_KEEP_DASHDASH,
    .foreign = gate_only_options,
    .foreign_name = "gate",
};

static const rpl_command trend_command = {
    .name = "baseline trend",
    BASELINE_HELP,
    .options = trend_options,
};

static int update(int argc, char **argv, bool accepting)
{
    gate_args a = {0};
    rpl_gate_measurement m = {0};
    rpl_strbuf report = RPL_STRBUF_INIT;
    char *path = NULL;
    int rc = gate_args_parse(&a, &update_command, accepting, argc, argv);

    if (rc < 0) {
        rc = rpl_gate_measure(&m, &a.run.in);
        if (rc == 0)
            rc = rpl_baseline_path(&path, a.run.baseline_dir, m.arch, a.run.test);
        if (rc == 0)
            rc = rpl_gate_update_baseline(&a.run, path, &m, &report);
        if (rc == 0)
            fputs(rpl_strbuf_cstr(&report), stdout);
        rc = rc == 0 ? RPL_EXIT_OK : rpl_cli_fail(rc);
    }
    rpl_strbuf_release(&report);
    free(path);
    rpl_gate_measurement_release(&m);
    gate_args_release(&a);
    return rc;
}

static int trend(int argc, char **argv)
{
    trend_args t = {0};
    rpl_strbuf text = RPL_STRBUF_INIT;
    int rc;

    rpl_cp_opts_init(&t.o.cp);
    if ((rc = rpl_parse_options(&trend_command, &t, &argc, &argv)) >= 0)
        return rc;
    if (!t.test || !t.dir || argc > 0)
        return rpl_cli_usage_error("usage: rocm-perf baseline trend --test NAME --baseline-dir "
                                   "DIR [--arch A] [--kernel REGEX] [--json]");
    rc = rpl_baseline_trend(&text, t.dir, t.arch, t.test, t.json, &t.o);
    if (rc == 0)
        fputs(rpl_strbuf_cstr(&text), stdout);
    rpl_strbuf_release(&text);
    return rc == 0 ? RPL_EXIT_OK : rpl_cli_fail(rc);
}

/* `show FILE` (fb NULL) or `diff A B`. */
static int show_or_diff(const char *fa, const char *fb)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = fb ? rpl_baseline_diff_files(&sb, fa, fb) : rpl_baseline_show_file(&sb, fa);

    if (rc == 0)
        fputs(rpl_strbuf_cstr(&sb), stdout);
    rpl_strbuf_release(&sb);
    return rc == 0 ? RPL_EXIT_OK : rpl_cli_fail(rc);
}

int cmd_baseline(int argc, char **argv)
{
    if (argc < 2) {
        rpl_parse_options_usage(&baseline_command, NULL, stderr);
        return rpl_cli_usage_error("baseline needs a subcommand: update, accept, trend, show or "
                                   "diff");
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        rpl_parse_options_usage(&baseline_command, NULL, stdout);
        return RPL_EXIT_OK;
    }
    if (strcmp(argv[1], "update") == 0)
        return update(argc - 1, argv + 1, false);
    if (strcmp(argv[1], "accept") == 0)
        return update(argc - 1, argv + 1, true);
    if (strcmp(argv[1], "trend") == 0)
        return trend(argc - 1, argv + 1);
    if (strcmp(argv[1], "show") == 0 && argc == 3)
        return show_or_diff(argv[2], NULL);
    if (strcmp(argv[1], "diff") == 0 && argc == 4)
        return show_or_diff(argv[2], argv[3]);
    if (strcmp(argv[1], "show") == 0 || strcmp(argv[1], "diff") == 0)
        return rpl_cli_usage_error("usage: rocm-perf baseline show FILE | diff A B");
    return rpl_cli_usage_error("'%s' is not a baseline subcommand (update, accept, trend, show, "
                               "diff)",
                               argv[1]);
}
