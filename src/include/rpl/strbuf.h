/* A growable NUL-terminated byte buffer (modelled on git's strbuf). */
#ifndef RPL_STRBUF_H
#define RPL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct rpl_strbuf {
    char *ptr;  /* NUL-terminated when cap > 0 */
    size_t len; /* bytes used, not counting the NUL */
    size_t cap; /* bytes allocated */
} rpl_strbuf;

#define RPL_STRBUF_INIT                                                                            \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Make room for `extra` more bytes plus the NUL. */
int rpl_strbuf_grow(rpl_strbuf *sb, size_t extra);
int rpl_strbuf_put(rpl_strbuf *sb, const void *data, size_t len);
int rpl_strbuf_puts(rpl_strbuf *sb, const char *s);
int rpl_strbuf_putc(rpl_strbuf *sb, char c);
int rpl_strbuf_printf(rpl_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* rpl_strbuf_printf with a va_list, which it uses up (the caller va_end()s it, as for vprintf). */
int rpl_strbuf_vprintf(rpl_strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The contents as a C string; "" for an empty buffer, never NULL. */
const char *rpl_strbuf_cstr(const rpl_strbuf *sb);
/* Hand the allocation to the caller (free() it) and reset the buffer. */
char *rpl_strbuf_detach(rpl_strbuf *sb);
/* Set the length to zero, keeping the allocation. */
void rpl_strbuf_reset(rpl_strbuf *sb);
/* Free the allocation and reinitialise. */
void rpl_strbuf_release(rpl_strbuf *sb);

#endif
