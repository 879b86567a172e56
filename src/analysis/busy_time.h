/* Busy time of the dispatches of a trace (private to src/analysis). */
#ifndef RPL_ANALYSIS_BUSY_TIME_H
#define RPL_ANALYSIS_BUSY_TIME_H

#include <stdint.h>

#include "rpl/trace.h"

/*
 * The length of the union of the dispatch intervals [start, end): time
 * during which at least one kernel ran (*all), and the same over the
 * dispatches whose symbol s has `flags[s] & mask` set (*sel).  The
 * dispatches must name valid symbols and have end >= start.
 */
int rpl_busy_time(const rpl_trace *t, const uint8_t *flags, uint8_t mask, int64_t *all,
                  int64_t *sel);

#endif
