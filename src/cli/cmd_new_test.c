/*
 * rocm-perf new-test: write a kernel-test scaffold (a portable kernel source
 * and its CMakeLists.txt) from the templates installed with rocm-perf.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/kernel_test.h"
#include "rpl/log.h"

enum { OPT_DIR = 256, OPT_LANG, OPT_TEMPLATES };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf new-test NAME [--dir DIR] [--lang hip|cuda] [--templates DIR]\n"
            "                          [-v|-q]\n"
            "\n"
            "Write DIR/NAME/NAME.hip (or NAME.cu) and DIR/NAME/CMakeLists.txt: a kernel\n"
            "test that uses rpl_harness.h (one source for HIP and CUDA) and registers\n"
            "itself with rocm_perf_add_kernel_test().  NAME is a C identifier; existing\n"
            "files are never overwritten.\n"
            "\n"
            "  --dir DIR         where to create NAME/ (default: the current directory)\n"
            "  --lang hip|cuda   the file extension and default architectures: hip gives\n"
            "                    NAME.hip for gfx90a gfx940, cuda NAME.cu for sm_90\n"
            "                    (default hip)\n"
            "  --templates DIR   the templates directory; default: $ROCM_PERF_TEMPLATES, else\n"
            "                    <prefix>/share/rocm-perf-lab/templates beside this program,\n"
            "                    else the source tree it was built from\n"
            "  -v, --verbose     more detail\n"
            "  -q, --quiet       errors only\n"
            "  -h, --help        this help\n"
            "\n"
            "Exit codes: 0 written, 2 bad usage or a file exists, 3 templates not found or a\n"
            "file could not be written.\n");
}

static int has_template(const char *dir)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s/kernel-test/kernel.in", dir);

    return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

/* The templates directory, by the search order of the usage text. */
static int find_templates(char *out, size_t size, const char *given)
{
    char exe[PATH_MAX];
    const char *env = getenv("ROCM_PERF_TEMPLATES");
    ssize_t len;

    if (given || (env && *env)) {
        const char *dir = given ? given : env;
        if (!has_template(dir))
            return rpl_error_set(RPL_EENV, "'%s' holds no kernel-test/kernel.in template", dir);
        snprintf(out, size, "%s", dir);
        return 0;
    }
    len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0) {
        char *slash;
        exe[len] = '\0';
        if ((slash = strrchr(exe, '/')) != NULL) {
            int n;
            *slash = '\0';
            n = snprintf(out, size, "%s/%s", exe, RPL_TEMPLATES_FROM_BINDIR);
            if (n > 0 && (size_t)n < size && has_template(out))
                return 0;
        }
    }
    snprintf(out, size, "%s", RPL_SOURCE_TEMPLATES_DIR);
    if (has_template(out))
        return 0;
    return rpl_error_set(RPL_EENV,
                         "templates not found beside the program or in '%s'; use --templates "
                         "or ROCM_PERF_TEMPLATES",
                         RPL_SOURCE_TEMPLATES_DIR);
}

int cmd_new_test(int argc, char **argv)
{
    static const struct option longopts[] = {{"dir", required_argument, NULL, OPT_DIR},
                                             {"lang", required_argument, NULL, OPT_LANG},
                                             {"templates", required_argument, NULL, OPT_TEMPLATES},
                                             RPL_CLI_COMMON_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    const char *dir = ".", *lang = "hip", *given = NULL, *name;
    char templates[PATH_MAX];
    int opt, rc;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return RPL_EXIT_OK;
        case OPT_DIR:
            dir = optarg;
            break;
        case OPT_LANG:
            lang = optarg;
            break;
        case OPT_TEMPLATES:
            given = optarg;
            break;
        default:
            return rpl_cli_usage_error("new-test: unknown or incomplete option '%s'; see "
                                       "'rocm-perf new-test --help'",
                                       argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return rpl_cli_usage_error("new-test wants one NAME; see 'rocm-perf new-test --help'");
    name = argv[optind];
    if (!rpl_kernel_test_name_ok(name))
        return rpl_cli_usage_error("'%s' is not a test name (a C identifier of 1 to 64 "
                                   "characters)",
                                   name);
    if (strcmp(lang, "hip") != 0 && strcmp(lang, "cuda") != 0)
        return rpl_cli_usage_error("--lang is hip or cuda, not '%s'", lang);
    if ((rc = find_templates(templates, sizeof(templates), given)) != 0)
        return rpl_cli_fail(rc);
    rpl_log_debug("templates from %s", templates);
    rc = rpl_kernel_test_scaffold(stdout, templates, dir, name, strcmp(lang, "hip") == 0);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}
