/* Comparing a replayed region with its captured post-dispatch image (see replay_backend.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_backend.h"
#include "rpl/error.h"

#define CHECK_CHUNK (4u << 20) /* a multiple of every element size */

rpl_tolerance rpl_replay_tolerance(const rpl_replay_opts *opts, rpl_dtype t)
{
    rpl_tolerance tol = rpl_compare_tolerance_default(t);
    bool fp = t == RPL_DTYPE_F16 || t == RPL_DTYPE_BF16 || t == RPL_DTYPE_F32 || t == RPL_DTYPE_F64;

    /* --rtol/--atol apply to floating point; integers and bytes stay bitwise. */
    return opts->have_tolerance && fp ? opts->tolerance : tol;
}

int rpl_replay_check_region(rpl_region_check *out, const rpl_snapshot *snap, size_t index,
                            bool global, const void *got, const rpl_replay_opts *opts)
{
    const unsigned char *g = got;
    unsigned char *buf;
    uint64_t base, size, off = 0;
    rpl_dtype dtype;
    FILE *f = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    if (global) {
        base = snap->globals[index].address;
        size = snap->globals[index].size;
        dtype = RPL_DTYPE_BYTES;
        rc = rpl_snapshot_global_open(&f, snap, index, true);
    } else {
        base = snap->regions[index].base;
        size = snap->regions[index].size;
        dtype = snap->regions[index].dtype;
        rc = rpl_snapshot_region_open(&f, snap, index, true);
    }
    if (rc)
        return rc;
    out->base = base;
    out->size = size;
    out->global = global;
    rpl_compare_init(&out->cmp, dtype, rpl_replay_tolerance(opts, dtype));
    if (!(buf = malloc(CHECK_CHUNK))) {
        fclose(f);
        return rpl_error_oom();
    }
    while (off < size) {
        size_t want = size - off < CHECK_CHUNK ? (size_t)(size - off) : CHECK_CHUNK;

        if (fread(buf, 1, want, f) != want) {
            rc = rpl_error_set(RPL_EINPUT, "snapshot '%s': the post image of 0x%llx ends early",
                               snap->dir, (unsigned long long)base);
            break;
        }
        rpl_compare_chunk(&out->cmp, base + off, g + off, buf, want);
        off += want;
    }
    free(buf);
    fclose(f);
    return rc;
}
