/* SHA-256 (OpenSSL's libcrypto), as lowercase hex. */
#ifndef RPL_SHA256_H
#define RPL_SHA256_H

#include <stddef.h>

typedef struct rpl_sha256 rpl_sha256;

/* An incremental digest: new, any number of updates, then final (which frees it). */
int rpl_sha256_new(rpl_sha256 **out);
int rpl_sha256_update(rpl_sha256 *h, const void *data, size_t len);
/* The digest as 64 hex digits and a NUL; frees h whatever the outcome. */
int rpl_sha256_final(rpl_sha256 *h, char hex[65]);
/* The same as 32 bytes. */
int rpl_sha256_final_raw(rpl_sha256 *h, unsigned char md[32]);
/* Free a digest that is not finished (NULL is fine). */
void rpl_sha256_free(rpl_sha256 *h);

/* The digest of one buffer, as hex and as 32 bytes. */
int rpl_sha256_buf(char hex[65], const void *data, size_t len);
int rpl_sha256_buf_raw(unsigned char md[32], const void *data, size_t len);
/* The digest of a file's bytes: RPL_ENOTFOUND when it does not exist, RPL_EIO when unreadable. */
int rpl_sha256_file(char hex[65], const char *path);

#endif
