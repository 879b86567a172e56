/* Merging address ranges into aligned, non-overlapping spans (see rpl/snapshot.h). */
#include <stdlib.h>

#include "rpl/error.h"
#include "rpl/snapshot.h"

static int cmp_base(const void *a, const void *b)
{
    const rpl_range *x = a, *y = b;

    return (x->base > y->base) - (x->base < y->base);
}

int rpl_ranges_merge(rpl_range **out, size_t *nout, const rpl_range *in, size_t n,
                     uint64_t granularity)
{
    const uint64_t mask = granularity - 1;
    rpl_range *spans;
    size_t m = 0, k = 0;

    *out = NULL;
    *nout = 0;
    if (granularity == 0 || (granularity & mask) != 0)
        return rpl_error_set(RPL_EUSAGE, "range granularity %llu is not a power of two",
                             (unsigned long long)granularity);
    spans = malloc((n ? n : 1) * sizeof(*spans));
    if (!spans)
        return rpl_error_oom();
    /* Align each range outwards; empty ranges take no space and are dropped. */
    for (size_t i = 0; i < n; i++) {
        uint64_t end;

        if (in[i].size == 0)
            continue;
        if (in[i].size > UINT64_MAX - in[i].base || in[i].base + in[i].size > UINT64_MAX - mask) {
            free(spans);
            return rpl_error_set(RPL_EINPUT, "range 0x%llx+%llu runs past the end of memory",
                                 (unsigned long long)in[i].base, (unsigned long long)in[i].size);
        }
        end = (in[i].base + in[i].size + mask) & ~mask;
        spans[m].base = in[i].base & ~mask;
        spans[m].size = end - spans[m].base;
        m++;
    }
    qsort(spans, m, sizeof(*spans), cmp_base);
    for (size_t i = 0; i < m; i++) {
        uint64_t end = spans[i].base + spans[i].size;

        /* Overlapping or touching the previous span: extend it. */
        if (k > 0 && spans[i].base <= spans[k - 1].base + spans[k - 1].size) {
            if (end > spans[k - 1].base + spans[k - 1].size)
                spans[k - 1].size = end - spans[k - 1].base;
            continue;
        }
        spans[k++] = spans[i];
    }
    *out = spans;
    *nout = k;
    return 0;
}
