/* SHA-256 through libcrypto's EVP interface (see rpl/sha256.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "rpl/error.h"
#include "rpl/sha256.h"

struct rpl_sha256 {
    EVP_MD_CTX *ctx;
};

int rpl_sha256_new(rpl_sha256 **out)
{
    rpl_sha256 *h = calloc(1, sizeof(*h));

    *out = NULL;
    if (!h || !(h->ctx = EVP_MD_CTX_new())) {
        free(h);
        return rpl_error_oom();
    }
    if (EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
        rpl_sha256_free(h);
        return rpl_error_set(RPL_EENV, "libcrypto cannot start a SHA-256 digest");
    }
    *out = h;
    return 0;
}

int rpl_sha256_update(rpl_sha256 *h, const void *data, size_t len)
{
    if (len && EVP_DigestUpdate(h->ctx, data, len) != 1)
        return rpl_error_set(RPL_EENV, "libcrypto SHA-256 update failed");
    return 0;
}

int rpl_sha256_final_raw(rpl_sha256 *h, unsigned char md[32])
{
    unsigned char buf[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    int ok = EVP_DigestFinal_ex(h->ctx, buf, &n) == 1 && n == 32;

    rpl_sha256_free(h);
    if (!ok)
        return rpl_error_set(RPL_EENV, "libcrypto SHA-256 finish failed");
    memcpy(md, buf, 32);
    return 0;
}

int rpl_sha256_final(rpl_sha256 *h, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[32];
    int rc = rpl_sha256_final_raw(h, md);

    if (rc != 0)
        return rc;
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
    return 0;
}

void rpl_sha256_free(rpl_sha256 *h)
{
    if (!h)
        return;
    EVP_MD_CTX_free(h->ctx);
    free(h);
}

/* A digest of one buffer, not yet finished (NULL when starting or updating failed). */
static rpl_sha256 *digest_of(const void *data, size_t len)
{
    rpl_sha256 *h;

    if (rpl_sha256_new(&h) != 0)
        return NULL;
    if (rpl_sha256_update(h, data, len) != 0) {
        rpl_sha256_free(h);
        return NULL;
    }
    return h;
}

int rpl_sha256_buf(char hex[65], const void *data, size_t len)
{
    rpl_sha256 *h = digest_of(data, len);

    return h ? rpl_sha256_final(h, hex) : rpl_error_last()->code;
}

int rpl_sha256_buf_raw(unsigned char md[32], const void *data, size_t len)
{
    rpl_sha256 *h = digest_of(data, len);

    return h ? rpl_sha256_final_raw(h, md) : rpl_error_last()->code;
}

int rpl_sha256_file(char hex[65], const char *path)
{
    unsigned char buf[65536];
    rpl_sha256 *h;
    FILE *f = fopen(path, "rb");
    size_t n;
    int rc;

    if (!f)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO, "cannot read '%s': %s",
                             path, strerror(errno));
    if ((rc = rpl_sha256_new(&h)) != 0) {
        fclose(f);
        return rc;
    }
    while (rc == 0 && (n = fread(buf, 1, sizeof(buf), f)) > 0)
        rc = rpl_sha256_update(h, buf, n);
    if (rc == 0 && ferror(f))
        rc = rpl_error_set(RPL_EIO, "error reading '%s'", path);
    fclose(f);
    if (rc != 0) {
        rpl_sha256_free(h);
        return rc;
    }
    return rpl_sha256_final(h, hex);
}
