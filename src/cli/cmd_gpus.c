/*
 * rocm-perf gpus: list this machine's GPUs as the drivers show them, and
 * write a CTest resource specification with one slot per GPU so that tests
 * with RESOURCE_GROUPS "gpus:1" never share a GPU.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"

enum { OPT_SPEC = 256, OPT_ROOT };

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: rocm-perf gpus [--ctest-resource-spec FILE] [--root DIR] [-v|-q]\n"
        "\n"
        "List the GPUs of this machine: AMD GPUs from the KFD topology (nodes with\n"
        "SIMDs; needs /dev/kfd), then NVIDIA GPUs from /proc/driver/nvidia/gpus (or\n"
        "/dev/nvidiaN).  Ids count from 0 in that order.\n"
        "\n"
        "  --ctest-resource-spec FILE  write a CTest resource spec with one slot per\n"
        "                    GPU ({\"version\":{\"major\":1,\"minor\":0},\"local\":[{\"gpus\":\n"
        "                    [{\"id\":\"0\",\"slots\":1},...]}]}); use it as\n"
        "                    ctest --resource-spec-file FILE, so that two tests with\n"
        "                    RESOURCE_GROUPS \"gpus:1\" never share a GPU.  No GPU: an\n"
        "                    empty list (and a note on stderr)\n"
        "  --root DIR        read dev/, sys/ and proc/ below DIR instead of / (tests)\n"
        "  -v, --verbose     more detail\n"
        "  -q, --quiet       errors only\n"
        "  -h, --help        this help\n"
        "\n"
        "Exit codes: 0 ok (also with no GPU), 2 bad usage, 3 the file could not be\n"
        "written.\n");
}

static void print_table(const rpl_gpu_list *list)
{
    printf("%-3s %-7s %-8s %-28s %s\n", "ID", "VENDOR", "ARCH", "MODEL", "FOUND AT");
    for (size_t i = 0; i < list->count; i++) {
        const rpl_gpu_entry *g = &list->gpus[i];
        printf("%-3zu %-7s %-8s %-28s %s\n", i, g->vendor, g->arch[0] ? g->arch : "-",
               g->model[0] ? g->model : "-", g->source);
    }
}

int cmd_gpus(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"ctest-resource-spec", required_argument, NULL, OPT_SPEC},
        {"root", required_argument, NULL, OPT_ROOT},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0}};
    const char *spec = NULL, *root = "";
    rpl_gpu_list *list;
    int opt, rc = 0;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return RPL_EXIT_OK;
        case OPT_SPEC:
            spec = optarg;
            break;
        case OPT_ROOT:
            root = optarg;
            break;
        default:
            return rpl_cli_usage_error("gpus: unknown or incomplete option '%s'; see 'rocm-perf "
                                       "gpus --help'",
                                       argv[optind - 1]);
        }
    }
    if (optind < argc)
        return rpl_cli_usage_error("gpus takes no file arguments, not '%s'", argv[optind]);
    if (!(list = calloc(1, sizeof(*list))))
        return rpl_cli_fail(rpl_error_oom());
    rpl_gpu_list_scan(list, root);
    if (list->count == 0)
        rpl_log_warn("no GPU found (no KFD node with SIMDs under /dev/kfd, no NVIDIA GPU under "
                     "/proc/driver/nvidia/gpus or /dev/nvidia0)%s",
                     spec ? "; the resource spec lists no GPU, so GPU tests will not run" : "");
    if (spec) {
        rc = rpl_gpu_resource_spec_write(spec, list);
        if (rc == 0)
            rpl_log_info("wrote %s: %zu GPU slot(s)", spec, list->count);
    } else if (list->count > 0) {
        print_table(list);
    }
    free(list);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}
