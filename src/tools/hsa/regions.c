/*
 * The device memory an application holds, as the capture's hooks see it
 * (capture_pure.h): pool and region allocations, and vmem mappings.  Both
 * lists stay sorted and free of overlaps; a range the runtime hands out
 * again was freed without the hooks seeing it, so what overlaps it goes.
 */
#include <stdlib.h>
#include <string.h>

#include "capture_pure.h"
#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/names.h"

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

const char *ch_kind_name(ch_kind k)
{
    static const char *const names[] = {[CH_POOL] = "pool",
                                        [CH_HOST] = "host",
                                        [CH_KERNARG] = "kernarg",
                                        [CH_DEVICE] = "device",
                                        [CH_VMM] = "vmm"};

    return RPL_NAME_OF(names, k, "device");
}

/* Drop the allocations that overlap [base, base+size). */
static void drop_allocs(ch_regions *r, uint64_t base, uint64_t size)
{
    size_t i, j = 0;

    for (i = 0; i < r->nallocs; i++)
        if (!overlaps(r->allocs[i].base, r->allocs[i].size, base, size))
            r->allocs[j++] = r->allocs[i];
    r->nallocs = j;
}

static size_t drop_maps(ch_regions *r, uint64_t va, uint64_t size)
{
    size_t i, j = 0, dropped;

    for (i = 0; i < r->nmaps; i++)
        if (!overlaps(r->maps[i].va, r->maps[i].size, va, size))
            r->maps[j++] = r->maps[i];
    dropped = r->nmaps - j;
    r->nmaps = j;
    return dropped;
}

/* A range that wraps around the address space is no allocation. */
static bool bad_range(uint64_t base, uint64_t size)
{
    return size == 0 || base > UINT64_MAX - size;
}

int ch_regions_alloc(ch_regions *r, uint64_t base, uint64_t size, ch_kind kind)
{
    size_t i;
    ch_alloc *a;

    if (bad_range(base, size))
        return 0;
    drop_allocs(r, base, size);
    drop_maps(r, base, size);
    for (i = r->nallocs; i > 0 && r->allocs[i - 1].base > base; i--)
        ;
    if (!(a = RPL_ARRAY_INSERT(r->allocs, r->nallocs, r->cap_allocs, i)))
        return RPL_ENOMEM;
    *a = (ch_alloc){.base = base, .size = size, .kind = kind};
    return 0;
}

bool ch_regions_free(ch_regions *r, uint64_t base)
{
    size_t i;

    for (i = 0; i < r->nallocs; i++) {
        if (r->allocs[i].base != base)
            continue;
        memmove(&r->allocs[i], &r->allocs[i + 1], (r->nallocs - i - 1) * sizeof(*r->allocs));
        r->nallocs--;
        return true;
    }
    return false;
}

int ch_regions_map(ch_regions *r, uint64_t va, uint64_t size, uint64_t handle)
{
    size_t i;
    ch_mapping *m;

    if (bad_range(va, size))
        return 0;
    drop_maps(r, va, size);
    drop_allocs(r, va, size);
    for (i = r->nmaps; i > 0 && r->maps[i - 1].va > va; i--)
        ;
    if (!(m = RPL_ARRAY_INSERT(r->maps, r->nmaps, r->cap_maps, i)))
        return RPL_ENOMEM;
    *m = (ch_mapping){.va = va, .size = size, .handle = handle, .accessible = false};
    return 0;
}

size_t ch_regions_unmap(ch_regions *r, uint64_t va, uint64_t size)
{
    if (bad_range(va, size))
        return 0;
    return drop_maps(r, va, size);
}

void ch_regions_set_access(ch_regions *r, uint64_t va, uint64_t size, bool accessible)
{
    size_t i;

    if (bad_range(va, size))
        return;
    for (i = 0; i < r->nmaps; i++)
        if (overlaps(r->maps[i].va, r->maps[i].size, va, size))
            r->maps[i].accessible = accessible;
}

bool ch_regions_find(const ch_regions *r, uint64_t addr, ch_alloc *out)
{
    size_t i;

    for (i = 0; i < r->nallocs; i++) {
        if (addr >= r->allocs[i].base && addr - r->allocs[i].base < r->allocs[i].size) {
            *out = r->allocs[i];
            return true;
        }
    }
    for (i = 0; i < r->nmaps; i++) {
        if (r->maps[i].accessible && addr >= r->maps[i].va &&
            addr - r->maps[i].va < r->maps[i].size) {
            out->base = r->maps[i].va;
            out->size = r->maps[i].size;
            out->kind = CH_VMM;
            return true;
        }
    }
    return false;
}

void ch_regions_release(ch_regions *r)
{
    free(r->allocs);
    free(r->maps);
    memset(r, 0, sizeof(*r));
}

int ch_regions_spans(const ch_regions *r, ch_alloc **out, size_t *n)
{
    rpl_range *in, *merged = NULL;
    ch_alloc *spans;
    size_t nin = 0, nmerged = 0, i;
    int rc;

    *out = NULL;
    *n = 0;
    in = malloc((r->nallocs + r->nmaps + 1) * sizeof(*in));
    if (!in)
        return rpl_error_oom();
    for (i = 0; i < r->nallocs; i++) {
        in[nin].base = r->allocs[i].base;
        in[nin++].size = r->allocs[i].size;
    }
    for (i = 0; i < r->nmaps; i++) {
        if (!r->maps[i].accessible)
            continue;
        in[nin].base = r->maps[i].va;
        in[nin++].size = r->maps[i].size;
    }
    rc = rpl_ranges_merge(&merged, &nmerged, in, nin, 1);
    free(in);
    if (rc)
        return rc;
    spans = calloc(nmerged ? nmerged : 1, sizeof(*spans));
    if (!spans) {
        free(merged);
        return rpl_error_oom();
    }
    for (i = 0; i < nmerged; i++) {
        ch_alloc first;

        spans[i].base = merged[i].base;
        spans[i].size = merged[i].size;
        /* The range that starts the span decides its kind. */
        spans[i].kind = ch_regions_find(r, merged[i].base, &first) ? first.kind : CH_VMM;
    }
    free(merged);
    *out = spans;
    *n = nmerged;
    return 0;
}
