/*
 * Kernel parameters for a snapshot (capture_pure.h): the layout comes from
 * the code object metadata (.args), the C types from the demangled name,
 * and a pointer's element type becomes the dtype of the region it points
 * into, which decides how replay compares that region.
 */
#include <stdlib.h>
#include <string.h>

#include "capture_pure.h"
#include "rpl/error.h"

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
    if (demangled && rpl_param_types(&types, &ntypes, demangled) == 0 && ntypes != nexplicit) {
        rpl_strv_free(types, ntypes);
        types = NULL;
        ntypes = 0;
    }
    rpl_error_clear();
    p = calloc(nexplicit ? nexplicit : 1, sizeof(*p));
    if (!p) {
        rpl_strv_free(types, ntypes);
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
            rpl_param_type_classify(p[k].type, &pointer, &pointee);
            if (p[k].pointer && pointer)
                p[k].pointee = pointee;
        }
        k++;
    }
    rpl_strv_free(types, ntypes);
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
