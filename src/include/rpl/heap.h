/*
 * A binary min-heap over an array its caller owns, generated for one
 * element type in the manner of BSD's <sys/tree.h>, so that the comparison
 * is inlined (the heaps merge runs of a million operations in the DAG
 * builder and in the summary's busy time):
 *
 *     RPL_HEAP_DEFINE(run_heap, run_head, run_head_less)
 *
 * defines the static functions run_heap_sift_down(h, n, i), which moves
 * h[i] down to its place in the heap h[0 .. n), and run_heap_make(h, n),
 * which orders h[0 .. n) as a heap.  less(a, b) compares two elements given
 * by const pointers; the smallest is at h[0].
 */
#ifndef RPL_HEAP_H
#define RPL_HEAP_H

#include <stdint.h>

#define RPL_HEAP_DEFINE(name, type, less)                                                          \
    static inline void name##_sift_down(type *h, uint32_t n, uint32_t i)                           \
    {                                                                                              \
        type x = h[i];                                                                             \
                                                                                                   \
        for (;;) {                                                                                 \
            uint32_t c = 2 * i + 1;                                                                \
                                                                                                   \
            if (c >= n)                                                                            \
                break;                                                                             \
            if (c + 1 < n && less(&h[c + 1], &h[c]))                                               \
                c++;                                                                               \
            if (!less(&h[c], &x))                                                                  \
                break;                                                                             \
            h[i] = h[c];                                                                           \
            i = c;                                                                                 \
        }                                                                                          \
        h[i] = x;                                                                                  \
    }                                                                                              \
                                                                                                   \
    static inline void name##_make(type *h, uint32_t n)                                            \
    {                                                                                              \
        for (uint32_t i = n; i > 0; i--)                                                           \
            name##_sift_down(h, n, i - 1);                                                         \
    }

#endif
