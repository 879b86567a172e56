/*
 * The code-object set the readers fill (rpl_codeobj_set): its kernels, its
 * warnings, and the printable strings the readers copy into them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj_int.h"
#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/strbuf.h"

int rpl_codeobj_set_new(rpl_codeobj_set **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : rpl_error_oom();
}

void co_kernel_clear(rpl_kernel_info *k)
{
    RPL_FREE_EACH(k->name, k->symbol, k->arch, k->target, k->origin);
    for (size_t i = 0; i < k->n_args; i++) {
        RPL_FREE_EACH(k->args[i].name, k->args[i].type_name, k->args[i].value_kind,
                      k->args[i].address_space);
    }
    free(k->args);
    memset(k, 0, sizeof(*k));
}

void co_set_truncate(rpl_codeobj_set *set, size_t keep)
{
    while (set->count > keep)
        co_kernel_clear(&set->kernels[--set->count]);
}

void rpl_codeobj_set_free(rpl_codeobj_set *set)
{
    if (!set)
        return;
    co_set_truncate(set, 0);
    free(set->kernels);
    co_globals_truncate(set, 0);
    free(set->globals);
    for (size_t i = 0; i < set->n_warnings; i++)
        free(set->warnings[i]);
    free(set->warnings);
    free(set);
}

rpl_kernel_info *co_kernel_push(rpl_codeobj_set *set)
{
    rpl_kernel_info *k = RPL_ARRAY_PUSH(set->kernels, set->count, set->cap);

    if (!k)
        return NULL;
    k->agpr_count = k->arch_vgpr_count = k->sgpr_count = RPL_CODEOBJ_UNKNOWN;
    k->vgpr_spill_count = k->sgpr_spill_count = RPL_CODEOBJ_UNKNOWN;
    k->uses_dynamic_stack = k->num_barriers = RPL_CODEOBJ_UNKNOWN;
    return k;
}

int co_global_push(rpl_codeobj_set *set, const char *name)
{
    char *copy;

    if (RPL_ARRAY_GROW(set->globals, set->cap_globals, set->n_globals + 1) != 0 ||
        !(copy = co_strndup(name, strlen(name))))
        return rpl_error_oom();
    set->globals[set->n_globals++] = copy;
    return 0;
}

void co_globals_truncate(rpl_codeobj_set *set, size_t keep)
{
    while (set->n_globals > keep)
        free(set->globals[--set->n_globals]);
}

int co_warn(rpl_codeobj_set *set, const char *fmt, ...)
{
    rpl_strbuf line = RPL_STRBUF_INIT;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = rpl_strbuf_vprintf(&line, fmt, ap);
    va_end(ap);
    if (rc == 0)
        rc = RPL_ARRAY_GROW(set->warnings, set->cap_warnings, set->n_warnings + 1);
    if (rc != 0) {
        rpl_strbuf_release(&line);
        return rc;
    }
    set->warnings[set->n_warnings++] = rpl_strbuf_detach(&line);
    return 0;
}

char *co_strndup(const char *s, size_t len)
{
    char *out = malloc(len + 1);

    if (!out)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        out[i] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    out[len] = '\0';
    return out;
}

char *co_origin(const char *origin, const char *sep, const char *what)
{
    size_t a = strlen(origin), b = strlen(sep), c = strlen(what);
    char *out = malloc(a + b + c + 1);

    if (!out)
        return NULL;
    memcpy(out, origin, a);
    memcpy(out + a, sep, b);
    memcpy(out + a + b, what, c + 1);
    return out;
}
