/*
 * Kernel parameter types from the demangled name, and the element type of
 * the memory a pointer parameter points to: the capture labels each region
 * with it so that replay compares floating-point output with a tolerance
 * and everything else bitwise.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "rpl/error.h"

/* libstdc++'s demangler (the C++ ABI's entry point; librpl_cupti.so links libstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *cc_demangle(const char *mangled)
{
    int status = -1;
    char *out;

    if (!mangled || strncmp(mangled, "_Z", 2) != 0)
        return NULL;
    out = __cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

void cc_strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Where the parameter list that closes at `close` opens, or NULL; (), <> and [] nest. */
static const char *opening_paren(const char *start, const char *close)
{
    int depth = 0;

    for (const char *p = close; p >= start; p--) {
        if (*p == ')' || *p == '>' || *p == ']')
            depth++;
        else if (*p == '(' || *p == '<' || *p == '[')
            depth--;
        if (depth == 0)
            return *p == '(' ? p : NULL;
    }
    return NULL;
}

static char *trimmed_copy(const char *s, size_t len)
{
    char *out;

    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    out = malloc(len + 1);
    if (out) {
        memcpy(out, s, len);
        out[len] = '\0';
    }
    return out;
}

int cc_param_types(char ***out, size_t *n, const char *demangled)
{
    const char *close, *open, *p, *item;
    char **v = NULL;
    size_t count = 0, cap = 0;
    int depth = 0;

    *out = NULL;
    *n = 0;
    /* The parameter list is the last "(...)"; " [clone .kd]" or " const" may follow it. */
    close = strrchr(demangled, ')');
    if (!close || !(open = opening_paren(demangled, close)))
        return rpl_error_set(RPL_EINPUT, "'%s' has no parameter list", demangled);
    item = open + 1;
    for (p = open + 1; p <= close; p++) {
        if (*p == '(' || *p == '<' || *p == '[') {
            depth++;
        } else if ((*p == ')' || *p == '>' || *p == ']') && p < close) {
            depth--;
        } else if ((*p == ',' && depth == 0) || p == close) {
            char *t = trimmed_copy(item, (size_t)(p - item));
            if (!t)
                goto oom;
            if (p == close && count == 0 && t[0] == '\0') { /* "k()" */
                free(t);
                break;
            }
            if (count == cap) {
                size_t ncap = cap ? cap * 2 : 8;
                char **nv = realloc(v, ncap * sizeof(*nv));
                if (!nv) {
                    free(t);
                    goto oom;
                }
                v = nv;
                cap = ncap;
            }
            v[count++] = t;
            item = p + 1;
        }
    }
    *out = v;
    *n = count;
    return 0;
oom:
    cc_strv_free(v, count);
    return rpl_error_oom();
}

/* Element types by the base type name (qualifiers removed, vector suffix 1-4 dropped). */
static const struct {
    const char *name;
    rpl_dtype dtype;
} base_types[] = {
    {"float", RPL_DTYPE_F32},
    {"double", RPL_DTYPE_F64},
    {"__half", RPL_DTYPE_F16},
    {"half", RPL_DTYPE_F16},
    {"__nv_bfloat16", RPL_DTYPE_BF16},
    {"nv_bfloat16", RPL_DTYPE_BF16},
    {"char", RPL_DTYPE_I8},
    {"signed char", RPL_DTYPE_I8},
    {"unsigned char", RPL_DTYPE_U8},
    {"uchar", RPL_DTYPE_U8},
    {"bool", RPL_DTYPE_U8},
    {"short", RPL_DTYPE_I16},
    {"unsigned short", RPL_DTYPE_U16},
    {"ushort", RPL_DTYPE_U16},
    {"int", RPL_DTYPE_I32},
    {"unsigned int", RPL_DTYPE_U32},
    {"unsigned", RPL_DTYPE_U32},
    {"uint", RPL_DTYPE_U32},
    {"long", RPL_DTYPE_I64},
    {"long long", RPL_DTYPE_I64},
    {"longlong", RPL_DTYPE_I64},
    {"unsigned long", RPL_DTYPE_U64},
    {"unsigned long long", RPL_DTYPE_U64},
    {"ulong", RPL_DTYPE_U64},
    {"ulonglong", RPL_DTYPE_U64},
};

/* Remove every whole-word occurrence of `word` from s (in place). */
static void drop_word(char *s, const char *word)
{
    size_t wl = strlen(word);
    char *p = s;

    while ((p = strstr(p, word)) != NULL) {
        bool starts = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool ends = !(isalnum((unsigned char)p[wl]) || p[wl] == '_');
        if (starts && ends)
            memmove(p, p + wl, strlen(p + wl) + 1);
        else
            p += wl;
    }
}

/* Collapse runs of blanks to one and trim. */
static void squeeze(char *s)
{
    char *w = s;
    bool blank = true;

    for (char *r = s; *r; r++) {
        if (isspace((unsigned char)*r)) {
            if (!blank)
                *w++ = ' ';
            blank = true;
        } else {
            *w++ = *r;
            blank = false;
        }
    }
    if (w > s && w[-1] == ' ')
        w--;
    *w = '\0';
}

static rpl_dtype base_dtype(char *name)
{
    size_t len = strlen(name);

    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof(base_types) / sizeof(base_types[0]); i++)
            if (strcmp(name, base_types[i].name) == 0)
                return base_types[i].dtype;
        /* float4, int2, __half2, __nv_bfloat162: the element type of a vector type */
        if (pass == 0 && len > 1 && name[len - 1] >= '1' && name[len - 1] <= '4')
            name[len - 1] = '\0';
        else
            break;
    }
    return RPL_DTYPE_BYTES;
}

void cc_type_classify(const char *type, bool *pointer, rpl_dtype *pointee)
{
    char *t = strdup(type ? type : "");
    size_t len;

    *pointer = false;
    *pointee = RPL_DTYPE_BYTES;
    if (!t)
        return;
    drop_word(t, "__restrict__");
    drop_word(t, "__restrict");
    drop_word(t, "restrict");
    drop_word(t, "const");
    drop_word(t, "volatile");
    squeeze(t);
    len = strlen(t);
    if (len && t[len - 1] == '*') {
        *pointer = true;
        t[--len] = '\0';
        squeeze(t);
        len = strlen(t);
        /* A pointer to pointers: the elements are device addresses. */
        *pointee = len && t[len - 1] == '*' ? RPL_DTYPE_U64 : base_dtype(t);
    }
    free(t);
}
