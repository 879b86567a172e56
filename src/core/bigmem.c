/* Huge-page advice for large arrays (rpl/bigmem.h). */
#include "rpl/bigmem.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define MIN_BYTES ((size_t)4 << 20)

void rpl_bigmem_advise(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo, hi;

    if (!p || bytes < MIN_BYTES || page <= 0)
        return;
#ifdef __GLIBC__
    /* Up to the end of the block's own mapping: advice on part of it would split it in
     * two, which realloc could then no longer move (mremap) without a copy. */
    if (malloc_usable_size(p) > bytes)
        bytes = malloc_usable_size(p);
#endif
    lo = (uintptr_t)p & ~((uintptr_t)page - 1);
    hi = ((uintptr_t)p + bytes + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: a failure changes nothing */
#else
    (void)p;
    (void)bytes;
#endif
}

void *rpl_bigmem_malloc(size_t bytes)
{
    void *p = malloc(bytes);

    rpl_bigmem_advise(p, bytes);
    return p;
}

/* calloc does not write the zeroes of a fresh mapping (a block this large is one in
 * rocm-perf: src/cli/main.c), so the advice still comes before its pages are touched. */
void *rpl_bigmem_calloc(size_t n, size_t size)
{
    void *p;

    if (size && n > SIZE_MAX / size)
        return NULL; /* checked here: sanitizers abort on calloc's overflow */
    p = calloc(n, size);

    if (p)
        rpl_bigmem_advise(p, n * size);
    return p;
}
