/*
 * Kernel parameters for a snapshot (capture_pure.h): the layout comes from
 * the code object metadata (.args), the C types from the demangled name,
 * and a pointer's element type becomes the dtype of the region it points
 * into, which decides how replay compares that region.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "capture_pure.h"
#include "rpl/error.h"

void ch_strv_free(char **v, size_t n)
{
    size_t i;

    for (i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* A copy of s[0..len) without surrounding blanks. */
static char *trimmed(const char *s, size_t len)
{
    char *r;

    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    r = malloc(len + 1);
    if (r) {
        memcpy(r, s, len);
        r[len] = '\0';
    }
    return r;
}

/* The '(' that opens the parameter list ending at the last ')', or NULL. */
static const char *param_list_open(const char *s, const char **close)
{
    const char *p = strrchr(s, ')');
    int depth = 0;

    *close = p;
    for (; p && p >= s; p--) {
        if (*p == ')')
            depth++;
        else if (*p == '(' && --depth == 0)
            return p;
        if (p == s)
            break;
    }
    return NULL;
}

int ch_param_types(char ***out, size_t *n, const char *demangled)
{
    const char *close, *open = param_list_open(demangled, &close), *p, *start;
    char **v = NULL;
    size_t count = 0, cap = 0;
    int depth = 0;

    *out = NULL;
    *n = 0;
    if (!open)
        return rpl_error_set(RPL_EINPUT, "'%s' has no parameter list", demangled);
    start = open + 1;
    for (p = start; p <= close; p++) {
        char *t;

        if (p < close && (*p == '(' || *p == '<' || *p == '['))
            depth++;
        else if (p < close && (*p == ')' || *p == '>' || *p == ']'))
            depth--;
        if (p < close && (*p != ',' || depth > 0))
            continue;
        t = trimmed(start, (size_t)(p - start));
        if (!t)
            goto oom;
        if (count == 0 && p == close && (!*t || strcmp(t, "void") == 0)) {
            free(t); /* "k()" or "k(void)" */
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
        start = p + 1;
    }
    *out = v;
    *n = count;
    return 0;
oom:
    ch_strv_free(v, count);
    return rpl_error_oom();
}

/* Remove trailing qualifiers ("const", "volatile", "__restrict") and blanks in place. */
static void strip_qualifiers(char *t)
{
    static const char *const quals[] = {"const", "volatile", "__restrict__", "__restrict",
                                        "restrict"};
    size_t len = strlen(t), i;
    bool again = true;

    while (again) {
        again = false;
        while (len && isspace((unsigned char)t[len - 1]))
            t[--len] = '\0';
        for (i = 0; i < sizeof(quals) / sizeof(quals[0]); i++) {
            size_t q = strlen(quals[i]);

            if (len >= q && strcmp(t + len - q, quals[i]) == 0 &&
                (len == q || !isalnum((unsigned char)t[len - q - 1]))) {
                len -= q;
                t[len] = '\0';
                again = true;
            }
        }
    }
    /* Leading qualifiers ("const float") too. */
    for (again = true; again;) {
        again = false;
        for (i = 0; i < sizeof(quals) / sizeof(quals[0]); i++) {
            size_t q = strlen(quals[i]);

            if (strncmp(t, quals[i], q) == 0 && isspace((unsigned char)t[q])) {
                memmove(t, t + q + 1, strlen(t + q + 1) + 1);
                again = true;
            }
        }
    }
}

static rpl_dtype scalar_dtype(const char *t)
{
    static const struct {
        const char *name;
        rpl_dtype dtype;
    } names[] = {
        {"float", RPL_DTYPE_F32},
        {"double", RPL_DTYPE_F64},
        {"_Float16", RPL_DTYPE_F16},
        {"__half", RPL_DTYPE_F16},
        {"half", RPL_DTYPE_F16},
        {"__fp16", RPL_DTYPE_F16},
        {"__bf16", RPL_DTYPE_BF16},
        {"__hip_bfloat16", RPL_DTYPE_BF16},
        {"hip_bfloat16", RPL_DTYPE_BF16},
        {"char", RPL_DTYPE_I8},
        {"signed char", RPL_DTYPE_I8},
        {"unsigned char", RPL_DTYPE_U8},
        {"bool", RPL_DTYPE_U8},
        {"short", RPL_DTYPE_I16},
        {"unsigned short", RPL_DTYPE_U16},
        {"int", RPL_DTYPE_I32},
        {"unsigned int", RPL_DTYPE_U32},
        {"long", RPL_DTYPE_I64},
        {"long long", RPL_DTYPE_I64},
        {"unsigned long", RPL_DTYPE_U64},
        {"unsigned long long", RPL_DTYPE_U64},
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(t, names[i].name) == 0)
            return names[i].dtype;
    return RPL_DTYPE_BYTES;
}

/* "HIP_vector_type<float, 4u>" -> "float" in place; other names unchanged. */
static void vector_element(char *t)
{
    static const char prefix[] = "HIP_vector_type<";
    char *comma;

    if (strncmp(t, prefix, sizeof(prefix) - 1) != 0)
        return;
    comma = strchr(t, ',');
    if (!comma)
        return;
    *comma = '\0';
    memmove(t, t + sizeof(prefix) - 1, strlen(t + sizeof(prefix) - 1) + 1);
    strip_qualifiers(t);
}

void ch_type_classify(const char *type, bool *pointer, rpl_dtype *pointee)
{
    char *t = trimmed(type, strlen(type));
    size_t len;

    *pointer = false;
    *pointee = RPL_DTYPE_BYTES;
    if (!t)
        return;
    strip_qualifiers(t);
    len = strlen(t);
    if (len && t[len - 1] == '*') {
        *pointer = true;
        t[len - 1] = '\0';
        strip_qualifiers(t);
        len = strlen(t);
        if (len && t[len - 1] == '*') {
            *pointee = RPL_DTYPE_U64; /* an array of device pointers */
        } else {
            vector_element(t);
            *pointee = scalar_dtype(t);
        }
    }
    free(t);
}

void ch_params_free(rpl_snap_param *p, size_t n)
{
    size_t i;

    for (i = 0; p && i < n; i++)
        free(p[i].type);
    free(p);
}

static bool is_hidden(const rpl_kernarg *a)
{
    return a->value_kind && strncmp(a->value_kind, "hidden_", 7) == 0;
}

int ch_params_build(rpl_snap_param **out, size_t *n, const rpl_kernel_info *info,
                    const char *demangled)
{
    char **types = NULL;
    size_t ntypes = 0, nexplicit = 0, i, k = 0;
    rpl_snap_param *p;

    *out = NULL;
    *n = 0;
    for (i = 0; i < info->n_args; i++)
        nexplicit += !is_hidden(&info->args[i]);
    /* Types only when the name lists exactly the explicit arguments. */
    if (demangled && ch_param_types(&types, &ntypes, demangled) == 0 && ntypes != nexplicit) {
        ch_strv_free(types, ntypes);
        types = NULL;
        ntypes = 0;
    }
    rpl_error_clear();
    p = calloc(nexplicit ? nexplicit : 1, sizeof(*p));
    if (!p) {
        ch_strv_free(types, ntypes);
        return rpl_error_oom();
    }
    for (i = 0; i < info->n_args; i++) {
        const rpl_kernarg *a = &info->args[i];
        bool pointer;
        rpl_dtype pointee;

        if (is_hidden(a))
            continue;
        p[k].offset = a->offset;
        p[k].size = a->size;
        p[k].pointer = a->value_kind && strcmp(a->value_kind, "global_buffer") == 0;
        p[k].pointee = RPL_DTYPE_BYTES;
        if (types) {
            p[k].type = types[k];
            types[k] = NULL;
            ch_type_classify(p[k].type, &pointer, &pointee);
            if (p[k].pointer && pointer)
                p[k].pointee = pointee;
        }
        k++;
    }
    ch_strv_free(types, ntypes);
    *out = p;
    *n = nexplicit;
    return 0;
}

int ch_kernarg_from_metadata(uint32_t *size, uint32_t *align, const rpl_kernel_info **info,
                             const rpl_codeobj_set *set, const char *name)
{
    size_t i;

    for (i = 0; i < set->count; i++) {
        const rpl_kernel_info *k = &set->kernels[i];

        if (k->vendor != RPL_VENDOR_AMD || !k->name || strcmp(k->name, name) != 0)
            continue;
        *size = k->kernarg_segment_size;
        *align = k->kernarg_segment_align;
        if (info)
            *info = k;
        return 0;
    }
    return rpl_error_set(RPL_ENOTFOUND, "the code object does not describe kernel '%s'", name);
}
