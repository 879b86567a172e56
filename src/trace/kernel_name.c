/* Short names of kernels: qualified function name only (see rpl/kernel_filter.h). */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/kernel_filter.h"

static const char anon_ns[] = "(anonymous namespace)";

/* Read "<len><id>" at *p; returns the id length (0 when there is none). */
static size_t source_name(const char **p)
{
    size_t len = 0;

    if (!isdigit((unsigned char)**p))
        return 0;
    while (isdigit((unsigned char)**p)) {
        if (len > SIZE_MAX / 16)
            return 0;
        len = len * 10 + (size_t)(*(*p)++ - '0');
    }
    return strnlen(*p, len) == len ? len : 0;
}

/*
 * Itanium-mangled "_Z[L]<len><id>..." or "_Z[L]N[qualifiers](<len><id>|St)*...":
 * the source-name components joined by "::".  Returns 0 when `s` is no
 * mangled name this understands, 1 when decoded, negative when out of memory.
 */
static int demangle_components(rpl_strbuf *out, const char *s)
{
    const char *p;
    int nested, parts = 0;

    if (strncmp(s, "_Z", 2) != 0)
        return 0;
    p = s + 2; /* only now: s + 2 may be past the end of a shorter string */
    if (*p == 'L')
        p++;
    nested = *p == 'N';
    if (nested) {
        p++;
        while (*p && strchr("rVKRO", *p))
            p++;
    }
    do {
        const char *id;
        size_t len;

        if (nested && strncmp(p, "St", 2) == 0) {
            id = "std";
            len = 3;
            p += 2;
        } else {
            len = source_name(&p);
            if (len == 0)
                break;
            id = p;
            p += len;
        }
        if ((parts++ && rpl_strbuf_puts(out, "::")) || rpl_strbuf_put(out, id, len))
            return RPL_ENOMEM;
    } while (nested);
    return parts > 0;
}

/*
 * A demangled or plain name: what precedes the parameter list, without
 * template argument lists, without the return type (everything up to the
 * last space outside "(anonymous namespace)") and without a ".kd" suffix.
 */
static int short_from_display(rpl_strbuf *out, const char *s)
{
    size_t depth = 0, start = 0, len;
    int rc = 0;

    for (const char *p = s; *p && rc == 0; p++) {
        if (depth == 0 && strncmp(p, anon_ns, sizeof(anon_ns) - 1) == 0) {
            rc = rpl_strbuf_puts(out, anon_ns);
            p += sizeof(anon_ns) - 2;
        } else if (*p == '<') {
            depth++;
        } else if (*p == '>' && depth > 0) {
            depth--;
        } else if (depth == 0) {
            if (*p == '(')
                break;
            if (*p == ' ')
                start = out->len + 1;
            rc = rpl_strbuf_putc(out, *p);
        }
    }
    if (rc)
        return rc;
    len = out->len - start;
    if (len > 3 && memcmp(out->ptr + start + len - 3, ".kd", 3) == 0)
        len -= 3;
    memmove(out->ptr, out->ptr + start, len);
    out->len = len;
    out->ptr[len] = '\0';
    return 0;
}

int rpl_kernel_short_name(rpl_strbuf *out, const char *name, const char *display_name)
{
    const char *s = display_name && display_name[0] ? display_name : name ? name : "";
    int rc;

    rpl_strbuf_reset(out);
    rc = demangle_components(out, s);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    rpl_strbuf_reset(out);
    rc = rpl_strbuf_grow(out, 1);
    return rc ? rc : short_from_display(out, s);
}
