// The deliberately slower saxpy of the perf suite (RPL_PERF_SUITE_SLOW_VARIANT):
// the same results, but neighbouring threads touch elements 4099 apart, so
// no access is coalesced.  Its runtime gate must fail against saxpy's baseline.
#define RPL_SAXPY_UNCOALESCED 1
#include "saxpy.hip"
