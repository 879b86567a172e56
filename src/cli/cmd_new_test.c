/*
 * rocm-perf new-test: write a kernel-test scaffold (a portable kernel source
 * and its CMakeLists.txt) from the templates installed with rocm-perf.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/kernel_test.h"
#include "rpl/log.h"
#include "rpl/templates.h"

typedef struct new_test_opts {
    const char *dir, *lang, *templates;
} new_test_opts;

#define F(m) RPL_FIELD(new_test_opts, m)

static const rpl_option new_test_options[] = {
    OPT_STRING(0, "dir", F(dir), "DIR", "where to create NAME/ (default: the current directory)"),
    OPT_STRING(0, "lang", F(lang), "hip|cuda",
               "the file extension and default architectures: hip gives NAME.hip for gfx90a "
               "gfx940, cuda NAME.cu for sm_90 (default hip)"),
    OPT_STRING(0, "templates", F(templates), "DIR",
               "the templates directory; default: $ROCM_PERF_TEMPLATES, else "
               "<prefix>/share/rocm-perf-lab/templates beside this program, else the source "
               "tree it was built from"),
    OPT_END(),
};

static const rpl_command new_test_command = {
    .name = "new-test",
    .usage = "rocm-perf new-test NAME [--dir DIR] [--lang hip|cuda] [--templates DIR]\n"
             "                   [-v|-q]",
    .description = "Write DIR/NAME/NAME.hip (or NAME.cu) and DIR/NAME/CMakeLists.txt: a kernel\n"
                   "test that uses rpl_harness.h (one source for HIP and CUDA) and registers\n"
                   "itself with rocm_perf_add_kernel_test().  NAME is a C identifier; existing\n"
                   "files are never overwritten.",
    .options = new_test_options,
    .exit_codes = "0 written, 2 bad usage or a file exists, 3 templates not found or a\n"
                  "file could not be written.",
};

int cmd_new_test(int argc, char **argv)
{
    new_test_opts o = {.dir = ".", .lang = "hip"};
    char templates[PATH_MAX];
    const char *name;
    int rc;

    if ((rc = rpl_parse_options(&new_test_command, &o, &argc, &argv)) >= 0)
        return rc;
    if (argc != 1)
        return rpl_cli_usage_error("new-test wants one NAME; see 'rocm-perf new-test --help'");
    name = argv[0];
    if (!rpl_kernel_test_name_ok(name))
        return rpl_cli_usage_error("'%s' is not a test name (a C identifier of 1 to 64 "
                                   "characters)",
                                   name);
    if (strcmp(o.lang, "hip") != 0 && strcmp(o.lang, "cuda") != 0)
        return rpl_cli_usage_error("--lang is hip or cuda, not '%s'", o.lang);
    if ((rc = rpl_templates_dir(templates, sizeof(templates), o.templates,
                                "kernel-test/kernel.in")) != 0)
        return rpl_cli_fail(rc);
    rpl_log_debug("templates from %s", templates);
    rc = rpl_kernel_test_scaffold(stdout, templates, o.dir, name, strcmp(o.lang, "hip") == 0);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}
