/* Large arrays: backed by huge pages where the kernel offers them. */
#ifndef RPL_BIGMEM_H
#define RPL_BIGMEM_H

#include <stddef.h>

/*
 * Ask for transparent huge pages under p[0..bytes), a block from malloc,
 * calloc or realloc (madvise MADV_HUGEPAGE on the pages of its mapping).
 * Nothing happens below 4 MiB, where THP is off, or without it.  Call it right after malloc or
 * realloc of an array that will be filled: a million-record array then
 * takes a few hundred page faults instead of tens of thousands (which
 * cost more than the work itself on a virtual machine's shadow page tables;
 * docs/validation/bench-analyze.md).
 */
void rpl_bigmem_advise(void *p, size_t bytes);
/* malloc and calloc of such an array, advised. */
void *rpl_bigmem_malloc(size_t bytes);
void *rpl_bigmem_calloc(size_t n, size_t size);

#endif
