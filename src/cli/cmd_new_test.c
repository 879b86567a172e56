/*
 * rocm-perf new-test: write a kernel-test scaffold (a portable kernel source
 * and its CMakeLists.txt) from the templates installed with rocm-perf.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"

#define TEMPLATE_MAX (1u << 20)

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

static int valid_name(const char *name)
{
    size_t len = strlen(name);

    if (len == 0 || len > 64 ||
        !(name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
          (name[0] >= 'a' && name[0] <= 'z')))
        return 0;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == len;
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

/* Copy `text` into `sb` with every @KEY@ of keys[] replaced by its value. */
static int substitute(rpl_strbuf *sb, const char *text, const char *const keys[][2], size_t nkeys)
{
    const char *p = text;
    int rc = 0;

    while (rc == 0 && *p) {
        size_t k;
        if (*p != '@') {
            rc = rpl_strbuf_putc(sb, *p++);
            continue;
        }
        for (k = 0; k < nkeys; k++) {
            size_t len = strlen(keys[k][0]);
            if (strncmp(p + 1, keys[k][0], len) == 0 && p[1 + len] == '@') {
                rc = rpl_strbuf_puts(sb, keys[k][1]);
                p += len + 2;
                break;
            }
        }
        if (k == nkeys)
            rc = rpl_strbuf_putc(sb, *p++);
    }
    return rc;
}

static int check_absent(const char *dir, const char *file)
{
    char path[PATH_MAX];

    if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
        return rpl_error_set(RPL_EUSAGE, "path too long: '%s/%s'", dir, file);
    if (access(path, F_OK) == 0)
        return rpl_error_set(RPL_EUSAGE, "'%s' exists; not overwritten", path);
    return 0;
}

static int write_one(const char *templates, const char *tmpl, const char *dir, const char *file,
                     const char *const keys[][2], size_t nkeys)
{
    char src[PATH_MAX], dst[PATH_MAX];
    char *text = NULL;
    size_t len;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    snprintf(src, sizeof(src), "%s/kernel-test/%s", templates, tmpl);
    if (snprintf(dst, sizeof(dst), "%s/%s", dir, file) >= (int)sizeof(dst))
        return rpl_error_set(RPL_EUSAGE, "path too long: '%s/%s'", dir, file);
    if ((rc = rpl_file_read_all(src, TEMPLATE_MAX, &text, &len)) == 0 &&
        (rc = substitute(&sb, text, keys, nkeys)) == 0 &&
        (rc = rpl_file_write_atomic(dst, rpl_strbuf_cstr(&sb), sb.len)) == 0)
        printf("wrote %s\n", dst);
    free(text);
    rpl_strbuf_release(&sb);
    return rc;
}

int cmd_new_test(int argc, char **argv)
{
    new_test_opts o = {.dir = ".", .lang = "hip"};
    const char *dir, *lang, *given, *name;
    char templates[PATH_MAX], outdir[PATH_MAX], source[96];
    int rc;

    if ((rc = rpl_parse_options(&new_test_command, &o, &argc, &argv)) >= 0)
        return rc;
    if (argc != 1)
        return rpl_cli_usage_error("new-test wants one NAME; see 'rocm-perf new-test --help'");
    dir = o.dir;
    lang = o.lang;
    given = o.templates;
    name = argv[0];
    if (!valid_name(name))
        return rpl_cli_usage_error("'%s' is not a test name (a C identifier of 1 to 64 "
                                   "characters)",
                                   name);
    if (strcmp(lang, "hip") != 0 && strcmp(lang, "cuda") != 0)
        return rpl_cli_usage_error("--lang is hip or cuda, not '%s'", lang);
    if ((rc = find_templates(templates, sizeof(templates), given)) != 0)
        return rpl_cli_fail(rc);
    rpl_log_debug("templates from %s", templates);
    if (snprintf(outdir, sizeof(outdir), "%s/%s", dir, name) >= (int)sizeof(outdir))
        return rpl_cli_usage_error("--dir is too long");
    if ((rc = rpl_mkdir_p(outdir)) != 0)
        return rpl_cli_fail(rc);
    {
        const int hip = strcmp(lang, "hip") == 0;
        const char *const keys[][2] = {{"NAME", name},
                                       {"EXT", hip ? "hip" : "cu"},
                                       {"ARCHITECTURES", hip ? "gfx90a gfx940" : "sm_90"}};
        const size_t nkeys = sizeof(keys) / sizeof(keys[0]);

        snprintf(source, sizeof(source), "%s.%s", name, hip ? "hip" : "cu");
        /* Both or neither: check before the first file is written. */
        if ((rc = check_absent(outdir, source)) != 0 ||
            (rc = check_absent(outdir, "CMakeLists.txt")) != 0)
            return rpl_cli_fail(rc);
        if ((rc = write_one(templates, "kernel.in", outdir, source, keys, nkeys)) != 0 ||
            (rc = write_one(templates, "CMakeLists.txt.in", outdir, "CMakeLists.txt", keys,
                            nkeys)) != 0)
            return rpl_cli_fail(rc);
    }
    return RPL_EXIT_OK;
}
