/*
 * A snapshot's module globals found in a candidate code object compiled
 * from an edited copy of the source.
 *
 * nvcc names what lives in a translation unit's anonymous namespace (CCCL's
 * cuda::std::ignore and customisation-point objects, which every source
 * including <cooperative_groups.h> gets; a program's own
 * `namespace { __device__ int n; }`) after that translation unit:
 *   _ZN42_INTERNAL_12306b83_13_tu_globals_cu_tu_sum44_GLOBAL__N__12306b83_...
 * where the hash after _INTERNAL_ and _GLOBAL__N__ (and, with -rdc, after
 * nvlink's __nv_static_<len>__ prefix) changes with the source's contents.
 * So the same object has another name in every candidate; the file's name
 * and the rest stay, as the pipeline builds a candidate at the original's
 * path.
 */
#ifndef RPL_REPLAY_GLOBAL_MATCH_H
#define RPL_REPLAY_GLOBAL_MATCH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * `name` with each such hash replaced by '@' (which no mangled name holds);
 * a name without one is copied unchanged.  0, or RPL_ENOMEM.
 */
int rpl_global_key(char **out, const char *name);

/*
 * The index in have[0..n) of the global that is `want`: its exact name, else
 * the one name (however often listed) whose rpl_global_key equals want's.
 * 0 and *index; RPL_ENOTFOUND (no error message set) when none matches;
 * RPL_EINPUT when several do (the message names two of them), since which
 * one holds the snapshot's bytes cannot be told.
 */
int rpl_global_match(const char *want, const char *const *have, size_t n, size_t *index);

/*
 * What a replay does with snapshot global `want` in a code object that does
 * not hold it under its own name (have[0..n): the code object's globals):
 * RPL_GLOBAL_USE its twin have[*index] (rpl_global_match); RPL_GLOBAL_LEAVE_OUT
 * when the code object holds no such global at all and the captured dispatch
 * did not change it (`changed` false): no kernel can name a global that its
 * code object lacks, so nothing the replay launches reads it and nothing it
 * compares depends on it (a candidate built from a header holds none of the
 * globals of the other kernels of the program's translation unit).  0 and
 * *plan; RPL_EINPUT (message set) when it cannot be told which global is
 * meant, or when the dispatch changed a global the code object lacks: an
 * output that code object cannot give.
 */
typedef enum rpl_global_plan { RPL_GLOBAL_USE, RPL_GLOBAL_LEAVE_OUT } rpl_global_plan;

int rpl_global_resolve(const char *want, bool changed, const char *const *have, size_t n,
                       size_t *index, rpl_global_plan *plan);

#endif
