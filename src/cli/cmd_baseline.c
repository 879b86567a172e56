/*
 * rocm-perf baseline update|show|diff: record a kernel test's baseline (the
 * section its input measures; the other section stays), print one, compare
 * two.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gate_cli.h"
#include "rpl/error.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf baseline update --test NAME --baseline-dir DIR [--arch A]\n"
            "                                 [--tolerance T] [--warmup W] [--kernel REGEX]\n"
            "                                 [--repetitions N]\n"
            "                                 (--static FILE... [--block N] | --trace DB... |\n"
            "                                  -- APP ARGS...)\n"
            "       rocm-perf baseline show FILE\n"
            "       rocm-perf baseline diff A B\n"
            "\n"
            "update  measure the input as 'rocm-perf gate' does and write its section\n"
            "        (static or runtime) of DIR/<arch>/<test>.json, keeping the other; the\n"
            "        runtime history gains this run's median (the last 10 are kept).\n"
            "        Prints what changed.  The file is read, changed and written under\n"
            "        a lock on its directory; another update waits for it up to\n"
            "        ROCM_PERF_LOCK_TIMEOUT seconds (default 60), then exits 3.\n"
            "show    print a baseline file readably\n"
            "diff    print the differences between two baseline files (exit 0 either way)\n"
            "\n"
            "Exit codes: 0 ok, 2 bad usage or a corrupt baseline (left untouched),\n"
            "3 environment, 77 no GPU (APP input).\n");
}

static int update(int argc, char **argv)
{
    gate_args a = {0};
    rpl_gate_measurement m = {0};
    char *path = NULL;
    int rc = gate_args_parse(&a, argc, argv, true, usage);

    if (rc < 0) {
        rc = rpl_gate_measure(&m, &a.in);
        if (rc == RPL_OK)
            rc = rpl_baseline_path(&path, a.baseline_dir, m.arch, a.test);
        if (rc == RPL_OK)
            rc = gate_update_baseline(&a, path, &m);
        rc = rc == RPL_OK ? RPL_EXIT_OK : rpl_cli_fail(rc);
    }
    free(path);
    rpl_gate_measurement_release(&m);
    gate_args_release(&a);
    return rc;
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
        return rpl_cli_usage_error("baseline needs a subcommand: update, show or diff");
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return RPL_EXIT_OK;
    }
    if (strcmp(argv[1], "update") == 0)
        return update(argc - 1, argv + 1);
    if (strcmp(argv[1], "show") == 0 && argc == 3)
        return show(argv[2]);
    if (strcmp(argv[1], "diff") == 0 && argc == 4)
        return diff(argv[2], argv[3]);
    if (strcmp(argv[1], "show") == 0 || strcmp(argv[1], "diff") == 0)
        return rpl_cli_usage_error("usage: rocm-perf baseline show FILE | diff A B");
    return rpl_cli_usage_error("'%s' is not a baseline subcommand (update, show, diff)", argv[1]);
}
