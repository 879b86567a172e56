/*
 * `rocm-perf new-test`: a kernel test scaffold (the kernel source and its
 * CMakeLists.txt, from templates/kernel-test) for a gate test of one kernel.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/kernel_test.h"
#include "rpl/strbuf.h"

#define TEMPLATE_MAX (1u << 20)

bool rpl_kernel_test_name_ok(const char *name)
{
    size_t len = strlen(name);

    if (len == 0 || len > 64 ||
        !(name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
          (name[0] >= 'a' && name[0] <= 'z')))
        return false;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == len;
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

static int write_one(FILE *out, const char *templates, const char *tmpl, const char *dir,
                     const char *file, const char *const keys[][2], size_t nkeys)
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
        fprintf(out, "wrote %s\n", dst);
    free(text);
    rpl_strbuf_release(&sb);
    return rc;
}

int rpl_kernel_test_scaffold(FILE *out, const char *templates, const char *dir, const char *name,
                             bool hip)
{
    const char *const keys[][2] = {{"NAME", name},
                                   {"EXT", hip ? "hip" : "cu"},
                                   {"ARCHITECTURES", hip ? "gfx90a gfx940" : "sm_90"}};
    const size_t nkeys = sizeof(keys) / sizeof(keys[0]);
    char outdir[PATH_MAX], source[96];
    int rc;

    if (snprintf(outdir, sizeof(outdir), "%s/%s", dir, name) >= (int)sizeof(outdir))
        return rpl_error_set(RPL_EUSAGE, "--dir is too long");
    if ((rc = rpl_mkdir_p(outdir)) != 0)
        return rc;
    snprintf(source, sizeof(source), "%s.%s", name, hip ? "hip" : "cu");
    /* Both or neither: check before the first file is written. */
    if ((rc = check_absent(outdir, source)) != 0 ||
        (rc = check_absent(outdir, "CMakeLists.txt")) != 0)
        return rc;
    if ((rc = write_one(out, templates, "kernel.in", outdir, source, keys, nkeys)) != 0)
        return rc;
    return write_one(out, templates, "CMakeLists.txt.in", outdir, "CMakeLists.txt", keys, nkeys);
}
