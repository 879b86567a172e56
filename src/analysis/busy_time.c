/*
 * Busy time: the union of the dispatch intervals, swept in start order.
 * Traces read from one queue are usually in start order already and are
 * swept in place.  Traces of several queues usually are per queue: the
 * queues' runs are merged with a heap (4 bytes per dispatch).  Otherwise the
 * intervals are sorted by an LSD radix sort on the start offset (32 bytes
 * per dispatch): on a million dispatches over several queues it takes a
 * fifth of the time of qsort, which would otherwise cost more than the
 * whole rest of the summary.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "busy_time.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"
#include "rpl/heap.h"

#define RADIX_BITS   11
#define SELECTED_BIT (UINT64_C(1) << 63)

typedef struct sweep {
    int64_t covered; /* end of the union so far */
    int64_t length;
    int started;
} sweep;

/* Add [start, end) given in start order: only what lies beyond the covered end counts. */
static void sweep_add(sweep *s, int64_t start, int64_t end)
{
    int64_t from = s->started && s->covered > start ? s->covered : start;

    if (end > from)
        s->length += end - from;
    if (!s->started || end > s->covered)
        s->covered = end;
    s->started = 1;
}

/* An interval keyed by its start offset from the earliest start; bit 63 marks "selected". */
typedef struct keyed {
    uint64_t key;
    int64_t end;
} keyed;

/* Stable LSD radix sort on the low `bits` bits of the keys; returns the sorted array. */
static keyed *radix_sort(keyed *a, keyed *tmp, size_t n, unsigned bits)
{
    size_t count[1u << RADIX_BITS];

    for (unsigned shift = 0; shift < bits; shift += RADIX_BITS) {
        size_t sum = 0;
        keyed *swap;

        for (size_t d = 0; d < (1u << RADIX_BITS); d++)
            count[d] = 0;
        for (size_t i = 0; i < n; i++)
            count[(a[i].key >> shift) & ((1u << RADIX_BITS) - 1)]++;
        for (size_t d = 0; d < (1u << RADIX_BITS); d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(a[i].key >> shift) & ((1u << RADIX_BITS) - 1)]++] = a[i];
        swap = a;
        a = tmp;
        tmp = swap;
    }
    return a;
}

static int sweep_unsorted(const rpl_trace *t, const uint8_t *flags, uint8_t mask, sweep *all,
                          sweep *sel)
{
    const rpl_dispatch *d = t->dispatches.items;
    size_t n = t->dispatches.count;
    int64_t min = d[0].start, max = d[0].start;
    keyed *a, *tmp, *sorted;
    unsigned bits = 0;

    for (size_t i = 1; i < n; i++) {
        min = d[i].start < min ? d[i].start : min;
        max = d[i].start > max ? d[i].start : max;
    }
    /* Offsets of 2^62 ns (146 years) and more are refused rather than mis-sorted. */
    if ((uint64_t)max - (uint64_t)min >= (UINT64_C(1) << 62))
        return rpl_error_set(RPL_EINPUT, "dispatch start times span more than 2^62 ns");
    while (bits < 62 && ((uint64_t)max - (uint64_t)min) >> bits)
        bits++;
    a = rpl_bigmem_malloc(n * sizeof(*a));
    tmp = rpl_bigmem_malloc(n * sizeof(*tmp));
    if (!a || !tmp) {
        free(a);
        free(tmp);
        return rpl_error_oom();
    }
    for (size_t i = 0; i < n; i++) {
        a[i].key =
            ((uint64_t)d[i].start - (uint64_t)min) | (flags[d[i].kernel] & mask ? SELECTED_BIT : 0);
        a[i].end = d[i].end;
    }
    sorted = radix_sort(a, tmp, n, bits);
    for (size_t i = 0; i < n; i++) {
        int64_t start = (int64_t)((uint64_t)min + (sorted[i].key & ~SELECTED_BIT));
        sweep_add(all, start, sorted[i].end);
        if (sorted[i].key & SELECTED_BIT)
            sweep_add(sel, start, sorted[i].end);
    }
    free(a);
    free(tmp);
    return 0;
}

/* A queue's next dispatch in the merge: its start, and where it stands in `order`. */
typedef struct run_head {
    int64_t start;
    uint32_t pos, end;
} run_head;

static inline bool run_head_less(const run_head *x, const run_head *y)
{
    return x->start < y->start;
}

RPL_HEAP_DEFINE(run_heap, run_head, run_head_less)

/* A dispatch's bucket among nq: its queue, or the last one (no queue). */
static uint32_t bucket_of(const rpl_dispatch *d, uint32_t nq)
{
    return d->queue < nq - 1 ? d->queue : nq - 1;
}

/*
 * The dispatches grouped by queue (trace order within each), merged by start
 * when each queue's are in start order; *merged false (nothing swept) when
 * one is not.
 */
static int sweep_queues(const rpl_trace *t, const uint8_t *flags, uint8_t mask, sweep *all,
                        sweep *sel, bool *merged)
{
    const rpl_dispatch *d = t->dispatches.items;
    uint32_t n = t->dispatches.count, nq = t->queues.count + 1, nh = 0; /* last: no queue */
    uint32_t *first = calloc((size_t)nq + 1, sizeof(*first));
    uint32_t *order = rpl_bigmem_malloc((size_t)n * sizeof(*order));
    run_head *heap = malloc((size_t)nq * sizeof(*heap));

    *merged = false;
    if (!first || !order || !heap) {
        free(first);
        free(order);
        free(heap);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < n; i++)
        first[bucket_of(&d[i], nq) + 1]++;
    for (uint32_t q = 0; q < nq; q++)
        first[q + 1] += first[q];
    for (uint32_t i = 0; i < n; i++)
        order[first[bucket_of(&d[i], nq)]++] = i;
    for (uint32_t q = nq; q > 0; q--)
        first[q] = first[q - 1];
    first[0] = 0;
    *merged = true;
    for (uint32_t q = 0; q < nq && *merged; q++) {
        for (uint32_t k = first[q] + 1; k < first[q + 1] && *merged; k++)
            *merged = d[order[k]].start >= d[order[k - 1]].start;
        if (first[q] < first[q + 1])
            heap[nh++] = (run_head){d[order[first[q]]].start, first[q], first[q + 1]};
    }
    if (*merged)
        run_heap_make(heap, nh);
    while (*merged && nh > 0) {
        const rpl_dispatch *x = &d[order[heap[0].pos]];

        sweep_add(all, x->start, x->end);
        if (flags[x->kernel] & mask)
            sweep_add(sel, x->start, x->end);
        if (++heap[0].pos < heap[0].end)
            heap[0].start = d[order[heap[0].pos]].start;
        else
            heap[0] = heap[--nh];
        run_heap_sift_down(heap, nh, 0);
    }
    free(first);
    free(order);
    free(heap);
    return 0;
}

int rpl_busy_time(const rpl_trace *t, const uint8_t *flags, uint8_t mask, int64_t *all,
                  int64_t *sel)
{
    const rpl_dispatch *d = t->dispatches.items;
    sweep s_all = {0}, s_sel = {0};
    uint32_t i;
    int rc = 0;

    for (i = 1; i < t->dispatches.count && d[i].start >= d[i - 1].start; i++)
        ;
    if (i < t->dispatches.count) {
        bool merged;

        rc = sweep_queues(t, flags, mask, &s_all, &s_sel, &merged);
        if (rc == 0 && !merged)
            rc = sweep_unsorted(t, flags, mask, &s_all, &s_sel);
    } else {
        for (i = 0; i < t->dispatches.count; i++) {
            sweep_add(&s_all, d[i].start, d[i].end);
            if (flags[d[i].kernel] & mask)
                sweep_add(&s_sel, d[i].start, d[i].end);
        }
    }
    *all = s_all.length;
    *sel = s_sel.length;
    return rc;
}
