/* Growable string buffer (see rpl/strbuf.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/strbuf.h"

int rpl_strbuf_grow(rpl_strbuf *sb, size_t extra)
{
    size_t need, cap;
    char *p;

    if (extra > SIZE_MAX - sb->len - 1)
        return rpl_error_oom();
    need = sb->len + extra + 1;
    if (need <= sb->cap)
        return 0;
    cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(sb->ptr, cap);
    if (!p)
        return rpl_error_oom();
    if (!sb->ptr)
        p[0] = '\0';
    sb->ptr = p;
    sb->cap = cap;
    return 0;
}

int rpl_strbuf_put(rpl_strbuf *sb, const void *data, size_t len)
{
    int rc = rpl_strbuf_grow(sb, len);

    if (rc)
        return rc;
    if (len)
        memcpy(sb->ptr + sb->len, data, len);
    sb->len += len;
    sb->ptr[sb->len] = '\0';
    return 0;
}

int rpl_strbuf_puts(rpl_strbuf *sb, const char *s)
{
    return rpl_strbuf_put(sb, s, strlen(s));
}

int rpl_strbuf_putc(rpl_strbuf *sb, char c)
{
    return rpl_strbuf_put(sb, &c, 1);
}

int rpl_strbuf_vprintf(rpl_strbuf *sb, const char *fmt, va_list ap)
{
    va_list again;
    int n, rc;

    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0) {
        va_end(again);
        return rpl_error_set(RPL_ERROR, "bad format string");
    }
    rc = rpl_strbuf_grow(sb, (size_t)n);
    if (rc == 0) {
        vsnprintf(sb->ptr + sb->len, (size_t)n + 1, fmt, again);
        sb->len += (size_t)n;
    }
    va_end(again);
    return rc;
}

int rpl_strbuf_printf(rpl_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = rpl_strbuf_vprintf(sb, fmt, ap);
    va_end(ap);
    return rc;
}

const char *rpl_strbuf_cstr(const rpl_strbuf *sb)
{
    return sb->ptr ? sb->ptr : "";
}

char *rpl_strbuf_detach(rpl_strbuf *sb)
{
    char *p = sb->ptr;

    if (!p)
        p = calloc(1, 1);
    sb->ptr = NULL;
    sb->len = sb->cap = 0;
    return p;
}

void rpl_strbuf_reset(rpl_strbuf *sb)
{
    sb->len = 0;
    if (sb->ptr)
        sb->ptr[0] = '\0';
}

void rpl_strbuf_release(rpl_strbuf *sb)
{
    free(sb->ptr);
    sb->ptr = NULL;
    sb->len = sb->cap = 0;
}
