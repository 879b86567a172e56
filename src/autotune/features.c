/*
 * Static features of one built configuration, read with the code of
 * `rocm-perf inspect`: the selected kernel's registers, LDS, scratch and
 * spills, and its theoretical occupancy; and whether it can run well at
 * all (spills, a block larger than the kernel allows, no resident block).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpl/arch.h"
#include "rpl/autotune.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/kernel_filter.h"
#include "rpl/occupancy.h"

void rpl_tune_features_release(rpl_tune_features *f)
{
    RPL_FREE_EACH(f->kernel, f->arch, f->prune, f->note);
    memset(f, 0, sizeof(*f));
}

/* The kernel entry to use: matching the regex and the arch; one name only. */
static int pick_kernel(const rpl_kernel_info **out, const rpl_codeobj_set *set,
                       const char *kernel_regex, const char *arch, const char *path)
{
    const rpl_kernel_info *first = NULL;
    rpl_kernel_filter f;
    int rc = rpl_kernel_filter_init(&f, kernel_regex, NULL, false);

    *out = NULL;
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < set->count && rc == 0; i++) {
        const rpl_kernel_info *k = &set->kernels[i];
        if (arch && strcasecmp(k->arch, arch) != 0)
            continue;
        if (!rpl_kernel_filter_selects(&f, k->name, k->name))
            continue;
        if (!first) {
            first = k;
        } else if (strcmp(first->name, k->name) != 0) {
            rc =
                rpl_error_set(RPL_EUSAGE,
                              "'%s' holds several kernels%s ('%s', '%s'): choose one with "
                              "--kernel",
                              path, kernel_regex ? " matching --kernel" : "", first->name, k->name);
        } else if (!arch && strcasecmp(first->arch, k->arch) != 0) {
            rc = rpl_error_set(RPL_EUSAGE,
                               "'%s' holds the kernel for several architectures ('%s', '%s'): "
                               "choose one with --arch",
                               path, first->arch, k->arch);
        }
    }
    rpl_kernel_filter_release(&f);
    *out = first;
    return rc;
}

static int set_text(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int set_text(char **field, const char *fmt, ...)
{
    char buf[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return (*field = strdup(buf)) ? 0 : rpl_error_oom();
}

static int judge(rpl_tune_features *f, const rpl_kernel_info *k, const rpl_arch *a, unsigned block)
{
    rpl_kernel_occupancy ko;
    int rc;

    f->spills = k->vgpr_spill_count >= 0 || k->sgpr_spill_count >= 0
                    ? (long)(k->vgpr_spill_count > 0 ? k->vgpr_spill_count : 0) +
                          (k->sgpr_spill_count > 0 ? k->sgpr_spill_count : 0)
                    : -1;
    f->occupancy = -1;
    if (f->spills > 0)
        return set_text(&f->prune, "spills %ld registers", f->spills);
    if (!a)
        return 0;
    if ((rc = rpl_occ_kernel(&ko, k, a, block, 0)) != 0)
        return rc;
    f->block = ko.block;
    f->max_block = ko.max_block;
    if (ko.block > ko.max_block)
        return set_text(&f->prune, "a block of %u threads exceeds the kernel's limit of %u",
                        ko.block, ko.max_block);
    if (!ko.known)
        return 0;
    f->occupancy = ko.occ.fraction;
    if (ko.occ.waves_per_cu == 0)
        return set_text(&f->prune, "cannot launch: no block is resident (limited by %s)",
                        rpl_occ_limit_name(ko.occ.limiter, k->vendor));
    return 0;
}

int rpl_tune_features_read(rpl_tune_features *out, const char *path, const char *kernel_regex,
                           const char *arch, unsigned block)
{
    rpl_codeobj_set *set = NULL;
    const rpl_kernel_info *k = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    out->spills = -1;
    out->occupancy = -1;
    if ((rc = rpl_codeobj_set_new(&set)) != 0)
        return rc;
    rc = rpl_codeobj_read_file(set, path);
    if (rc == RPL_EINPUT) {
        /* A program without GPU code (a CPU stand-in, or code the reader does not know). */
        out->note = strdup(rpl_error_last()->message);
        rpl_error_clear();
        rpl_codeobj_set_free(set);
        return out->note ? 0 : rpl_error_oom();
    }
    if (rc == 0)
        rc = pick_kernel(&k, set, kernel_regex, arch, path);
    if (rc == 0 && !k) {
        char buf[512];
        snprintf(buf, sizeof(buf), "no kernel%s%s%s%s in '%s'", kernel_regex ? " matching '" : "",
                 kernel_regex ? kernel_regex : "", kernel_regex ? "'" : "",
                 arch ? " for that architecture" : "", path);
        if (!(out->note = strdup(buf)))
            rc = rpl_error_oom();
    } else if (rc == 0) {
        out->known = true;
        out->vgpr = k->vgpr_count;
        out->lds_bytes = k->group_segment_fixed_size;
        out->scratch_bytes = k->private_segment_fixed_size;
        if (!(out->kernel = strdup(k->name)) || !(out->arch = strdup(k->arch)))
            rc = rpl_error_oom();
        if (rc == 0)
            rc = judge(out, k, rpl_arch_find(k->arch), block);
    }
    rpl_codeobj_set_free(set);
    if (rc != 0)
        rpl_tune_features_release(out);
    return rc;
}
