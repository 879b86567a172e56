/* Huge-page advice for large arrays (rpl/bigmem.h). */
#include "rpl/bigmem.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#define MIN_BYTES ((size_t)4 << 20)

void rpl_bigmem_advise(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo, hi;

    if (!p || bytes < MIN_BYTES || page <= 0)
        return;
    /* The pages the block lies on: with malloc's own mapping for a block this large, that is
     * the whole mapping, which then stays one piece that realloc can still move. */
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

/* A block this large is a fresh mapping: calloc does not write its zeroes, so the advice
 * still comes before the first page is touched. */
void *rpl_bigmem_calloc(size_t n, size_t size)
{
    void *p = calloc(n, size);

    if (p)
        rpl_bigmem_advise(p, n * size);
    return p;
}
