/*
 * The application's device allocations as the capture sees them: a sorted
 * array of non-overlapping ranges, updated from the allocation callbacks.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/names.h"

const char *cc_kind_name(cc_kind k)
{
    static const char *const names[] = {[CC_DEVICE] = "device",
                                        [CC_POOL] = "pool",
                                        [CC_VMM] = "vmm",
                                        [CC_MANAGED] = "managed",
                                        [CC_HOST] = "host"};

    return RPL_NAME_OF(names, k, "device");
}

static uint64_t end_of(const cc_alloc *e)
{
    return e->base + e->size;
}

static bool ends_by(const void *alloc, const void *ptr)
{
    return end_of(alloc) <= *(const uint64_t *)ptr;
}

/* Index of the first entry whose end lies above ptr (entries are sorted and disjoint). */
static size_t first_ending_after(const cc_allocs *a, uint64_t ptr)
{
    return rpl_lower_bound(a->items, a->count, sizeof(*a->items), &ptr, ends_by);
}

static int insert_at(cc_allocs *a, size_t at, cc_alloc e)
{
    cc_alloc *slot = RPL_ARRAY_INSERT(a->items, a->count, a->cap, at);

    if (!slot)
        return RPL_ENOMEM;
    *slot = e;
    return 0;
}

static void erase_at(cc_allocs *a, size_t at)
{
    memmove(a->items + at, a->items + at + 1, (a->count - at - 1) * sizeof(*a->items));
    a->count--;
}

int cc_allocs_remove_range(cc_allocs *a, uint64_t base, uint64_t size)
{
    uint64_t end = base + size;
    size_t i;

    if (size == 0 || end < base)
        return 0;
    i = first_ending_after(a, base);
    while (i < a->count && a->items[i].base < end) {
        cc_alloc *e = &a->items[i];
        uint64_t e_end = end_of(e);

        if (e->base < base && e_end > end) { /* the range lies inside: split in two */
            cc_alloc tail = {end, e_end - end, e->kind};
            e->size = base - e->base;
            return insert_at(a, i + 1, tail);
        }
        if (e->base < base) { /* keep the head */
            e->size = base - e->base;
            i++;
        } else if (e_end > end) { /* keep the tail */
            e->size = e_end - end;
            e->base = end;
            i++;
        } else {
            erase_at(a, i);
        }
    }
    return 0;
}

int cc_allocs_add(cc_allocs *a, uint64_t base, uint64_t size, cc_kind kind)
{
    cc_alloc e = {base, size, kind};
    size_t at;
    int rc;

    if (size == 0 || base + size < base)
        return 0;
    if ((rc = cc_allocs_remove_range(a, base, size)) != 0)
        return rc;
    at = first_ending_after(a, base);
    if (kind == CC_VMM) {
        /* Join the VMM neighbours that touch: one mapped range, one region. */
        if (at > 0 && a->items[at - 1].kind == CC_VMM && end_of(&a->items[at - 1]) == base) {
            at--;
            e.base = a->items[at].base;
            e.size += a->items[at].size;
            erase_at(a, at);
        }
        if (at < a->count && a->items[at].kind == CC_VMM && a->items[at].base == base + size) {
            e.size += a->items[at].size;
            erase_at(a, at);
        }
    }
    return insert_at(a, at, e);
}

bool cc_allocs_free(cc_allocs *a, uint64_t base)
{
    size_t i = first_ending_after(a, base);

    if (i < a->count && a->items[i].base == base) {
        erase_at(a, i);
        return true;
    }
    return false;
}

const cc_alloc *cc_allocs_find(const cc_allocs *a, uint64_t ptr)
{
    size_t i = first_ending_after(a, ptr);

    if (i < a->count && a->items[i].base <= ptr)
        return &a->items[i];
    return NULL;
}

void cc_allocs_release(cc_allocs *a)
{
    free(a->items);
    memset(a, 0, sizeof(*a));
}
