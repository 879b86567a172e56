/*
 * rocm-perf gpus: list this machine's GPUs as the drivers show them, and
 * write a CTest resource specification with one slot per GPU so that tests
 * with RESOURCE_GROUPS "gpus:1" never share a GPU.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"

typedef struct gpus_opts {
    const char *spec, *root;
} gpus_opts;

#define F(m) RPL_FIELD(gpus_opts, m)

static const rpl_option gpus_options[] = {
    OPT_STRING(0, "ctest-resource-spec", F(spec), "FILE",
               "write a CTest resource spec with one slot per GPU "
               "({\"version\":{\"major\":1,\"minor\":0},\"local\":[{\"gpus\": "
               "[{\"id\":\"0\",\"slots\":1},...]}]}); use it as ctest --resource-spec-file FILE, "
               "so that two tests with RESOURCE_GROUPS \"gpus:1\" never share a GPU.  No GPU: an "
               "empty list (and a note on stderr)"),
    OPT_STRING(0, "root", F(root), "DIR",
               "read dev/, sys/ and proc/ below DIR instead of / (tests)"),
    OPT_END(),
};

static const rpl_command gpus_command = {
    .name = "gpus",
    .usage = "rocm-perf gpus [--ctest-resource-spec FILE] [--root DIR] [-v|-q]",
    .description = "List the GPUs of this machine: AMD GPUs from the KFD topology (nodes with\n"
                   "SIMDs; needs /dev/kfd), then NVIDIA GPUs from /proc/driver/nvidia/gpus (or\n"
                   "/dev/nvidiaN).  Ids count from 0 in that order.",
    .options = gpus_options,
    .exit_codes = "0 ok (also with no GPU), 2 bad usage, 3 the file could not be\nwritten.",
};

int cmd_gpus(int argc, char **argv)
{
    gpus_opts o = {.root = ""};
    rpl_gpu_list *list;
    int rc = rpl_parse_options(&gpus_command, &o, &argc, &argv);

    if (rc >= 0)
        return rc;
    if (argc > 0)
        return rpl_cli_usage_error("gpus takes no file arguments, not '%s'", argv[0]);
    rc = 0;
    if (!(list = calloc(1, sizeof(*list))))
        return rpl_cli_fail(rpl_error_oom());
    rpl_gpu_list_scan(list, o.root);
    if (list->count == 0)
        rpl_log_warn("no GPU found (no KFD node with SIMDs under /dev/kfd, no NVIDIA GPU under "
                     "/proc/driver/nvidia/gpus or /dev/nvidia0)%s",
                     o.spec ? "; the resource spec lists no GPU, so GPU tests will not run" : "");
    if (o.spec) {
        rc = rpl_gpu_resource_spec_write(o.spec, list);
        if (rc == 0)
            rpl_log_info("wrote %s: %zu GPU slot(s)", o.spec, list->count);
    } else if (list->count > 0) {
        rpl_gpu_list_print(stdout, list);
    }
    free(list);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}
