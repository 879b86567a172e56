/*
 * The checks a code object passes before anything reaches a GPU (see
 * rpl_replay_check_code_object in rpl/replay.h): code for the snapshot's
 * architecture, the kernel symbol, and the explicit parameter layout where
 * the code object records it (AMD metadata .args, cubin EIATTR_KPARAM_INFO).
 */
#include <stdlib.h>
#include <string.h>

#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/replay.h"
#include "rpl/strbuf.h"

static bool hidden_arg(const rpl_kernarg *a)
{
    return a->value_kind && strncmp(a->value_kind, "hidden_", 7) == 0;
}

/* The setting of an AMD target feature: '+', '-', or 0 when the target leaves it open. */
static char feature(const char *target, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = strchr(target, ':'); p; p = strchr(p + 1, ':'))
        if (strncmp(p + 1, name, n) == 0 && (p[1 + n] == '+' || p[1 + n] == '-'))
            return p[1 + n];
    return 0;
}

static int check_features(const rpl_snapshot *snap, const rpl_kernel_info *k, const char *path)
{
    static const char *const names[] = {"xnack", "sramecc"};

    if (snap->backend != RPL_SNAP_HSA || !k->target || !snap->target)
        return 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char want = feature(snap->target, names[i]), have = feature(k->target, names[i]);

        if (want && have && want != have)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': kernel '%s' is built for %s%c, the snapshot's GPU runs "
                                 "%s%c",
                                 path, snap->code_object_symbol, names[i], have, names[i], want);
    }
    return 0;
}

static int check_layout(const rpl_snapshot *snap, const rpl_kernel_info *k, const char *path)
{
    size_t n = 0;

    for (size_t i = 0; i < k->n_args; i++) {
        const rpl_kernarg *a = &k->args[i];

        if (hidden_arg(a))
            continue;
        if (n >= snap->nparams)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': kernel '%s' takes more parameters than the snapshot's "
                                 "%zu: its signature differs",
                                 path, snap->code_object_symbol, snap->nparams);
        if (a->offset != snap->params[n].offset || a->size != snap->params[n].size)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': kernel '%s' parameter %zu is %u bytes at offset %u, the "
                                 "snapshot's is %u bytes at offset %u: its signature differs",
                                 path, snap->code_object_symbol, n, a->size, a->offset,
                                 snap->params[n].size, snap->params[n].offset);
        n++;
    }
    if (n != snap->nparams)
        return rpl_error_set(RPL_EINPUT,
                             "'%s': kernel '%s' takes %zu parameters, the snapshot's %zu: its "
                             "signature differs",
                             path, snap->code_object_symbol, n, snap->nparams);
    if (k->kernarg_segment_size > snap->kernarg_size)
        return rpl_error_set(RPL_EINPUT,
                             "'%s': kernel '%s' reads a %u-byte kernarg segment, the snapshot "
                             "captured %llu bytes",
                             path, snap->code_object_symbol, k->kernarg_segment_size,
                             (unsigned long long)snap->kernarg_size);
    return 0;
}

static int check_block(const rpl_snapshot *snap, const rpl_kernel_info *k, const char *path)
{
    uint64_t threads = (uint64_t)snap->block[0] * snap->block[1] * snap->block[2];

    if (k->max_flat_workgroup_size && threads > k->max_flat_workgroup_size)
        return rpl_error_set(RPL_EINPUT,
                             "'%s': kernel '%s' allows at most %u threads per block, the "
                             "snapshot launches %llu",
                             path, snap->code_object_symbol, k->max_flat_workgroup_size,
                             (unsigned long long)threads);
    return 0;
}

/* "sm_80, sm_90": the architectures a code object holds, for the message. */
static int list_archs(rpl_strbuf *sb, const rpl_codeobj_set *set)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < set->count; i++) {
        bool seen = false;

        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(set->kernels[j].arch, set->kernels[i].arch) == 0;
        if (!seen)
            rc = rpl_strbuf_printf(sb, "%s%s", sb->len ? ", " : "", set->kernels[i].arch);
    }
    return rc;
}

int rpl_replay_check_code_object(const rpl_snapshot *snap, const char *path)
{
    rpl_codeobj_set *set = NULL;
    const rpl_kernel_info *k = NULL;
    bool have_arch = false;
    int rc;

    if ((rc = rpl_codeobj_set_new(&set)) != 0)
        return rc;
    if ((rc = rpl_codeobj_read_file(set, path)) != 0) {
        rpl_codeobj_set_free(set);
        return rc;
    }
    for (size_t i = 0; i < set->count && !k; i++) {
        const rpl_kernel_info *ki = &set->kernels[i];

        if (strcmp(ki->arch, snap->arch) != 0)
            continue;
        have_arch = true;
        if (ki->symbol && strcmp(ki->symbol, snap->code_object_symbol) == 0)
            k = ki;
    }
    if (!have_arch) {
        rpl_strbuf archs = RPL_STRBUF_INIT;

        rc = list_archs(&archs, set);
        if (rc == 0)
            rc = rpl_error_set(RPL_EINPUT,
                               "'%s' holds no code for %s, the snapshot's architecture (it has "
                               "%s)",
                               path, snap->arch, archs.len ? archs.ptr : "no kernels");
        rpl_strbuf_release(&archs);
    } else if (!k) {
        rc = rpl_error_set(RPL_EINPUT, "'%s' has no kernel '%s' for %s", path,
                           snap->code_object_symbol, snap->arch);
    } else if ((rc = check_features(snap, k, path)) == 0 &&
               (rc = check_layout(snap, k, path)) == 0) {
        rc = check_block(snap, k, path);
    }
    rpl_codeobj_set_free(set);
    return rc;
}
