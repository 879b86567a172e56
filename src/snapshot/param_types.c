/*
 * Kernel parameter types from a demangled kernel name, and the element type
 * of the memory a pointer parameter points to.  Both capture libraries (CUDA
 * and HSA) label each captured region with it, so that replay compares
 * floating-point output with a tolerance and everything else bitwise.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/snapshot.h"

void rpl_strv_free(char **v, size_t n)
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

/* A copy of s[0..len) without surrounding blanks. */
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

static int strv_push(char ***v, size_t *count, size_t *cap, char *item)
{
    if (RPL_ARRAY_GROW(*v, *cap, *count + 1) != 0)
        return -1;
    (*v)[(*count)++] = item;
    return 0;
}

int rpl_param_types(char ***out, size_t *n, const char *demangled)
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
        char *t;

        if (p < close && (*p == '(' || *p == '<' || *p == '[')) {
            depth++;
            continue;
        }
        if (p < close && (*p == ')' || *p == '>' || *p == ']')) {
            depth--;
            continue;
        }
        if (p < close && (*p != ',' || depth > 0))
            continue;
        if (!(t = trimmed_copy(item, (size_t)(p - item))))
            goto oom;
        if (p == close && count == 0 && (!*t || strcmp(t, "void") == 0)) {
            free(t); /* "k()" or "k(void)" */
            break;
        }
        if (strv_push(&v, &count, &cap, t) != 0) {
            free(t);
            goto oom;
        }
        item = p + 1;
    }
    *out = v;
    *n = count;
    return 0;
oom:
    rpl_strv_free(v, count);
    return rpl_error_oom();
}

/* Element types by the scalar type name (qualifiers removed), CUDA's and HIP's spellings. */
static const struct {
    const char *name;
    rpl_dtype dtype;
} scalar_types[] = {
    {"float", RPL_DTYPE_F32},         {"double", RPL_DTYPE_F64},
    {"_Float16", RPL_DTYPE_F16},      {"__half", RPL_DTYPE_F16},
    {"half", RPL_DTYPE_F16},          {"__fp16", RPL_DTYPE_F16},
    {"__bf16", RPL_DTYPE_BF16},       {"__nv_bfloat16", RPL_DTYPE_BF16},
    {"nv_bfloat16", RPL_DTYPE_BF16},  {"__hip_bfloat16", RPL_DTYPE_BF16},
    {"hip_bfloat16", RPL_DTYPE_BF16}, {"char", RPL_DTYPE_I8},
    {"signed char", RPL_DTYPE_I8},    {"unsigned char", RPL_DTYPE_U8},
    {"uchar", RPL_DTYPE_U8},          {"bool", RPL_DTYPE_U8},
    {"short", RPL_DTYPE_I16},         {"unsigned short", RPL_DTYPE_U16},
    {"ushort", RPL_DTYPE_U16},        {"int", RPL_DTYPE_I32},
    {"unsigned int", RPL_DTYPE_U32},  {"unsigned", RPL_DTYPE_U32},
    {"uint", RPL_DTYPE_U32},          {"long", RPL_DTYPE_I64},
    {"long long", RPL_DTYPE_I64},     {"longlong", RPL_DTYPE_I64},
    {"unsigned long", RPL_DTYPE_U64}, {"unsigned long long", RPL_DTYPE_U64},
    {"ulong", RPL_DTYPE_U64},         {"ulonglong", RPL_DTYPE_U64},
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

static void drop_qualifiers(char *t)
{
    static const char *const qualifiers[] = {"__restrict__", "__restrict", "restrict", "const",
                                             "volatile"};

    for (size_t i = 0; i < sizeof(qualifiers) / sizeof(qualifiers[0]); i++)
        drop_word(t, qualifiers[i]);
    squeeze(t);
}

/* "HIP_vector_type<float, 4u>" -> "float" in place; other names unchanged. */
static void hip_vector_element(char *t)
{
    static const char prefix[] = "HIP_vector_type<";
    char *comma;

    if (strncmp(t, prefix, sizeof(prefix) - 1) != 0 || !(comma = strchr(t, ',')))
        return;
    *comma = '\0';
    memmove(t, t + sizeof(prefix) - 1, strlen(t + sizeof(prefix) - 1) + 1);
    squeeze(t);
}

static rpl_dtype scalar_dtype(char *name)
{
    size_t len = strlen(name);

    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof(scalar_types) / sizeof(scalar_types[0]); i++)
            if (strcmp(name, scalar_types[i].name) == 0)
                return scalar_types[i].dtype;
        /* float4, int2, __half2, __nv_bfloat162: the element type of a vector type */
        if (pass == 0 && len > 1 && name[len - 1] >= '1' && name[len - 1] <= '4')
            name[len - 1] = '\0';
        else
            break;
    }
    return RPL_DTYPE_BYTES;
}

void rpl_param_type_classify(const char *type, bool *pointer, rpl_dtype *pointee)
{
    char *t = strdup(type ? type : "");
    size_t len;

    *pointer = false;
    *pointee = RPL_DTYPE_BYTES;
    if (!t)
        return;
    drop_qualifiers(t);
    len = strlen(t);
    if (len && t[len - 1] == '*') {
        *pointer = true;
        t[--len] = '\0';
        drop_qualifiers(t);
        len = strlen(t);
        if (len && t[len - 1] == '*') {
            *pointee = RPL_DTYPE_U64; /* an array of device pointers */
        } else {
            hip_vector_element(t);
            *pointee = scalar_dtype(t);
        }
    }
    free(t);
}
