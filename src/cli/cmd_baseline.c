/*
 * rocm-perf baseline update|accept|trend|show|diff: record a kernel test's
 * baseline (the section its input measures; the other section stays), record
 * an intended move, look at its history's change points, print one, compare
 * two.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gate_cli.h"
#include "rpl/error.h"
#include "rpl/gate_measure.h"
#include "rpl/trend.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf baseline update --test NAME --baseline-dir DIR [--arch A]\n"
            "                                 [--tolerance T] [--warmup W] [--kernel REGEX]\n"
            "                                 [--repetitions N]\n"
            "                                 (--static FILE... [--block N] | --trace DB... |\n"
            "                                  -- APP ARGS...)\n"
            "       rocm-perf baseline accept --test NAME --baseline-dir DIR --reason TEXT\n"
            "                                 [the options and input of update]\n"
            "       rocm-perf baseline trend --test NAME --baseline-dir DIR [--arch A]\n"
            "                                [--kernel REGEX] [--json] [--permutations P]\n"
            "                                [--alpha A] [--seed S]\n"
            "       rocm-perf baseline show FILE\n"
            "       rocm-perf baseline diff A B\n"
            "\n"
            "update  measure the input as 'rocm-perf gate' does and write its section\n"
            "        (static or runtime) of DIR/<arch>/<test>.json, keeping the other; the\n"
            "        runtime history gains this run's median (the last 10 are kept).\n"
            "        Prints what changed.  The file is read, changed and written under\n"
            "        a lock on its directory; another update waits for it up to\n"
            "        ROCM_PERF_LOCK_TIMEOUT seconds (default 60), then exits 3.\n"
            "        Each update adds an entry to the file's history: date, the commit of\n"
            "        the repository holding DIR, device, driver and GPU clock state, each\n"
            "        kernel's median (the last 1000 are kept).\n"
            "accept  an update that moves the baseline on purpose: the history entry\n"
            "        carries --reason, and each kernel's history_ns restarts at the new\n"
            "        median; trend and the HTML report show it\n"
            "trend   per kernel the history with its change points (E-Divisive on the\n"
            "        log medians, permutation test: P 199, alpha 0.01, segments of at\n"
            "        least 5 entries), where each began (entry, commit range), and a\n"
            "        slow drift; --json prints docs/schemas/trend.schema.json.  --arch\n"
            "        is needed when DIR holds the test for several architectures\n"
            "show    print a baseline file readably\n"
            "diff    print the differences between two baseline files (exit 0 either way)\n"
            "\n"
            "Exit codes: 0 ok, 2 bad usage or a corrupt baseline (left untouched),\n"
            "3 environment, 77 no GPU (APP input).\n");
}

static int update(int argc, char **argv, bool accepting)
{
    gate_args a = {0};
    rpl_gate_measurement m = {0};
    rpl_strbuf report = RPL_STRBUF_INIT;
    char *path = NULL;
    int rc = gate_args_parse(&a, argc, argv, true, usage);

    if (rc < 0 && accepting && !a.run.reason)
        rc = rpl_cli_usage_error("baseline accept needs --reason TEXT (why the baseline moves)");
    else if (rc < 0 && !accepting && a.run.reason)
        rc = rpl_cli_usage_error("--reason belongs to 'baseline accept'");
    else if (rc < 0 && a.run.reason && a.run.in.nstatic)
        rc = rpl_cli_usage_error("baseline accept records runtime moves: give --trace or -- APP");
    if (rc < 0) {
        rc = rpl_gate_measure(&m, &a.run.in);
        if (rc == RPL_OK)
            rc = rpl_baseline_path(&path, a.run.baseline_dir, m.arch, a.run.test);
        if (rc == RPL_OK)
            rc = rpl_gate_update_baseline(&a.run, path, &m, &report);
        if (rc == RPL_OK)
            fputs(rpl_strbuf_cstr(&report), stdout);
        rc = rc == RPL_OK ? RPL_EXIT_OK : rpl_cli_fail(rc);
    }
    rpl_strbuf_release(&report);
    free(path);
    rpl_gate_measurement_release(&m);
    gate_args_release(&a);
    return rc;
}

static int trend(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"test", required_argument, NULL, 't'},
        {"baseline-dir", required_argument, NULL, 'd'},
        {"arch", required_argument, NULL, 'a'},
        {"kernel", required_argument, NULL, 'k'},
        {"json", no_argument, NULL, 'j'},
        {"permutations", required_argument, NULL, 'P'},
        {"alpha", required_argument, NULL, 'A'},
        {"seed", required_argument, NULL, 'S'},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    const char *test = NULL, *dir = NULL, *arch = NULL;
    bool json = false;
    rpl_trend_opts o = {0};
    rpl_strbuf text = RPL_STRBUF_INIT;
    char *end;
    int opt, rc;

    rpl_cp_opts_init(&o.cp);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "k:" RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return RPL_EXIT_OK;
        case 't':
            test = optarg;
            break;
        case 'd':
            dir = optarg;
            break;
        case 'a':
            arch = optarg;
            break;
        case 'k':
            o.kernel_regex = optarg;
            break;
        case 'j':
            json = true;
            break;
        case 'P':
            o.cp.permutations = (unsigned)strtoul(optarg, &end, 10);
            if (*end || optarg[0] == '-' || o.cp.permutations < 19 || o.cp.permutations > 100000)
                return rpl_cli_usage_error("--permutations takes 19 to 100000, not '%s'", optarg);
            break;
        case 'A':
            o.cp.alpha = strtod(optarg, &end);
            if (*end || !(o.cp.alpha > 0 && o.cp.alpha < 0.5))
                return rpl_cli_usage_error("--alpha takes a value between 0 and 0.5, not '%s'",
                                           optarg);
            break;
        case 'S':
            o.cp.seed = strtoul(optarg, &end, 10);
            if (*end || optarg[0] == '-' || !optarg[0])
                return rpl_cli_usage_error("--seed takes a whole number, not '%s'", optarg);
            break;
        default:
            return rpl_cli_usage_error("baseline trend: unknown option or missing value '%s'",
                                       argv[optind - 1]);
        }
    }
    if (!test || !dir || optind < argc)
        return rpl_cli_usage_error("usage: rocm-perf baseline trend --test NAME --baseline-dir "
                                   "DIR [--arch A] [--kernel REGEX] [--json]");
    rc = rpl_baseline_trend(&text, dir, arch, test, json, &o);
    if (rc == RPL_OK)
        fputs(rpl_strbuf_cstr(&text), stdout);
    rpl_strbuf_release(&text);
    return rc == RPL_OK ? RPL_EXIT_OK : rpl_cli_fail(rc);
}

static int show(const char *file)
{
    rpl_baseline *b = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = rpl_baseline_read(&b, file);

    if (rc == RPL_OK)
        rc = rpl_baseline_describe(&sb, b);
    if (rc == RPL_OK)
        fputs(rpl_strbuf_cstr(&sb), stdout);
    rpl_strbuf_release(&sb);
    rpl_baseline_free(b);
    return rc == RPL_OK ? RPL_EXIT_OK : rpl_cli_fail(rc);
}

static int diff(const char *fa, const char *fb)
{
    rpl_baseline *a = NULL, *b = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = rpl_baseline_read(&a, fa);

    if (rc == RPL_OK)
        rc = rpl_baseline_read(&b, fb);
    if (rc == RPL_OK)
        rc = rpl_baseline_diff(&sb, a, b);
    if (rc == RPL_OK)
        printf("%s -> %s:\n%s", fa, fb, sb.len ? rpl_strbuf_cstr(&sb) : "  no differences\n");
    rpl_strbuf_release(&sb);
    rpl_baseline_free(a);
    rpl_baseline_free(b);
    return rc == RPL_OK ? RPL_EXIT_OK : rpl_cli_fail(rc);
}

int cmd_baseline(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return rpl_cli_usage_error("baseline needs a subcommand: update, accept, trend, show or "
                                   "diff");
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return RPL_EXIT_OK;
    }
    if (strcmp(argv[1], "update") == 0)
        return update(argc - 1, argv + 1, false);
    if (strcmp(argv[1], "accept") == 0)
        return update(argc - 1, argv + 1, true);
    if (strcmp(argv[1], "trend") == 0)
        return trend(argc - 1, argv + 1);
    if (strcmp(argv[1], "show") == 0 && argc == 3)
        return show(argv[2]);
    if (strcmp(argv[1], "diff") == 0 && argc == 4)
        return diff(argv[2], argv[3]);
    if (strcmp(argv[1], "show") == 0 || strcmp(argv[1], "diff") == 0)
        return rpl_cli_usage_error("usage: rocm-perf baseline show FILE | diff A B");
    return rpl_cli_usage_error("'%s' is not a baseline subcommand (update, accept, trend, show, "
                               "diff)",
                               argv[1]);
}
