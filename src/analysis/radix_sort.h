/* Stable LSD radix sort of (key, value) pairs, shared by the DAG and the roofline grouping. */
#ifndef RPL_ANALYSIS_RADIX_SORT_H
#define RPL_ANALYSIS_RADIX_SORT_H

#include <stdint.h>

/*
 * Sort `n` (key, value) pairs by key, stably, in place: an LSD radix sort
 * whose passes cover only the bits the largest key uses.  RPL_ENOMEM when
 * its scratch buffers cannot be had.
 */
int rpl_radix_sort_u64(uint64_t *keys, uint32_t *vals, uint32_t n);

#endif
