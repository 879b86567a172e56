/*
 * What a built configuration is, for the cache key, in digests that stay
 * the same when the same inputs are built again: nvcc and hipcc write
 * temporary file names and the like into the host program, so its bytes
 * change with every build while the GPU code it carries does not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpl/autotune.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/sha256.h"
#include "tune_int.h"

#define MAX_SOURCE ((size_t)256 << 20)

typedef struct image_digest {
    rpl_sha256 *h;
    size_t images;
    int rc;
} image_digest;

/* "<label>:<length>:" then the bytes, so that no two sequences of parts collide. */
static int update_part(rpl_sha256 *h, const char *label, const void *data, size_t len)
{
    char head[96];
    int rc;

    snprintf(head, sizeof(head), "%s:%zu:", label, len);
    if ((rc = rpl_sha256_update(h, head, strlen(head))) != 0)
        return rc;
    return rpl_sha256_update(h, data, len);
}

static void on_image(void *ctx, const char *kind, const void *data, size_t len)
{
    image_digest *d = ctx;

    if (d->rc == 0)
        d->rc = update_part(d->h, kind, data, len);
    d->images++;
}

int rpl_tune_code_digest(char out[65], const char **kind, const char *path)
{
    image_digest d = {NULL, 0, 0};
    rpl_codeobj_set *set = NULL;
    int rc;

    if ((rc = rpl_sha256_new(&d.h)) != 0)
        return rc;
    if ((rc = rpl_codeobj_set_new(&set)) != 0) {
        rpl_sha256_free(d.h);
        return rc;
    }
    set->on_image = on_image;
    set->image_ctx = &d;
    rc = rpl_codeobj_read_file(set, path);
    rpl_codeobj_set_free(set);
    if (rc == 0 && d.images > 0) {
        *kind = "gpu_code";
        if (d.rc != 0) {
            rpl_sha256_free(d.h);
            return d.rc;
        }
        return rpl_sha256_final(d.h, out);
    }
    rpl_sha256_free(d.h);
    if (rc != 0 && rc != RPL_EINPUT)
        return rc; /* unreadable: the whole-file digest would fail the same way */
    /* No GPU code the readers know (a host-only program, a script): the whole file. */
    rpl_error_clear();
    *kind = "binary";
    return rpl_sha256_file(out, path);
}

int rpl_tune_inputs_digest(char out[65], const char *const *build_argv)
{
    rpl_sha256 *h;
    int rc;

    if ((rc = rpl_sha256_new(&h)) != 0)
        return rc;
    for (size_t i = 0; rc == 0 && build_argv[i]; i++) {
        const char *w = build_argv[i];
        struct stat st;
        char *data = NULL;
        size_t len = 0;

        rc = update_part(h, "word", w, strlen(w));
        /* A word after the compiler that names a file is a source (or a list, a header...). */
        if (rc != 0 || i == 0 || stat(w, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if ((rc = rpl_file_read_all(w, MAX_SOURCE, &data, &len)) == 0)
            rc = update_part(h, "file", data, len);
        free(data);
    }
    if (rc != 0) {
        rpl_sha256_free(h);
        return rc;
    }
    return rpl_sha256_final(h, out);
}
