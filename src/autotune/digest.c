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

#include <openssl/evp.h>

#include "rpl/autotune.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/sha256.h"
#include "tune_int.h"

#define MAX_SOURCE ((size_t)256 << 20)

typedef struct image_digest {
    EVP_MD_CTX *md;
    size_t images;
    int ok;
} image_digest;

/* "<label>:<length>:" then the bytes, so that no two sequences of parts collide. */
static int update_part(EVP_MD_CTX *md, const char *label, const void *data, size_t len)
{
    char head[96];

    snprintf(head, sizeof(head), "%s:%zu:", label, len);
    return EVP_DigestUpdate(md, head, strlen(head)) &&
           (len == 0 || EVP_DigestUpdate(md, data, len));
}

static int finish(char out[65], EVP_MD_CTX *md, int ok)
{
    unsigned char buf[EVP_MAX_MD_SIZE];
    unsigned int len = 0;

    ok = ok && EVP_DigestFinal_ex(md, buf, &len) && len == 32;
    EVP_MD_CTX_free(md);
    if (!ok)
        return rpl_error_set(RPL_EENV, "SHA-256 failed in libcrypto");
    tune_sha256_hex(out, buf);
    return RPL_OK;
}

static void on_image(void *ctx, const char *kind, const void *data, size_t len)
{
    image_digest *d = ctx;

    d->ok = d->ok && update_part(d->md, kind, data, len);
    d->images++;
}

int rpl_tune_code_digest(char out[65], const char **kind, const char *path)
{
    image_digest d = {EVP_MD_CTX_new(), 0, 1};
    rpl_codeobj_set *set = NULL;
    int rc;

    if (!d.md)
        return rpl_error_oom();
    d.ok = EVP_DigestInit_ex(d.md, EVP_sha256(), NULL);
    if ((rc = rpl_codeobj_set_new(&set)) != RPL_OK) {
        EVP_MD_CTX_free(d.md);
        return rc;
    }
    set->on_image = on_image;
    set->image_ctx = &d;
    rc = rpl_codeobj_read_file(set, path);
    rpl_codeobj_set_free(set);
    if (rc == RPL_OK && d.images > 0) {
        *kind = "gpu_code";
        return finish(out, d.md, d.ok);
    }
    EVP_MD_CTX_free(d.md);
    if (rc != RPL_OK && rc != RPL_EINPUT)
        return rc; /* unreadable: the whole-file digest would fail the same way */
    /* No GPU code the readers know (a host-only program, a script): the whole file. */
    rpl_error_clear();
    *kind = "binary";
    return rpl_sha256_file(out, path);
}

int rpl_tune_inputs_digest(char out[65], const char *const *build_argv)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok, rc = RPL_OK;

    if (!md)
        return rpl_error_oom();
    ok = EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    for (size_t i = 0; ok && build_argv[i]; i++) {
        const char *w = build_argv[i];
        struct stat st;
        char *data = NULL;
        size_t len = 0;

        ok = update_part(md, "word", w, strlen(w));
        /* A word after the compiler that names a file is a source (or a list, a header...). */
        if (!ok || i == 0 || stat(w, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if ((rc = rpl_file_read_all(w, MAX_SOURCE, &data, &len)) != RPL_OK)
            break;
        ok = update_part(md, "file", data, len);
        free(data);
    }
    if (rc != RPL_OK) {
        EVP_MD_CTX_free(md);
        return rc;
    }
    return finish(out, md, ok);
}
