/*
 * The rules of `rocm-perf optimize` (no LLM): loop unrolling with the seed's
 * guardrails.  A proposal is a whole new source text; whether it is kept is
 * the candidate pipeline's business (rpl/pipeline.h), which also judges
 * register pressure on the built code object.
 */
#ifndef RPL_OPTIMIZE_RULES_H
#define RPL_OPTIMIZE_RULES_H

#include <stddef.h>

#include "rpl/kernel_source.h"

typedef struct rpl_unroll_proposal {
    rpl_kernel_source *parsed; /* the whole source with the pragma in place, parsed */
    const char *text;          /* its text (parsed->text) */
    size_t len;
    char *strategy;  /* "unroll x4 (loop 1, line 17)" */
    unsigned loop;   /* the loop's index in the kernel */
    unsigned factor; /* 2..8 */
} rpl_unroll_proposal;

typedef struct rpl_unroll_plan {
    rpl_unroll_proposal *proposals;
    size_t count;
    char **skipped; /* one line per loop left alone and why ("loop 0 (line 12): calls
                       __syncthreads at line 14") */
    size_t nskipped;
} rpl_unroll_plan;

/*
 * Unroll proposals for `kernel` of `src`: one per loop the guardrails allow
 * (no barrier, atomic, dynamic shared memory, break/return/goto, or
 * unknown call in the body; not from a macro), with the wave-aware factor
 * of rpl_ks_unroll_factor (wave_size 32 or 64; 0 counts as 64).  A loop that
 * already carries that unroll count is skipped.  RPL_ENOTFOUND for a kernel
 * the source does not define.
 */
int rpl_rules_unroll(rpl_unroll_plan **out, const rpl_kernel_source *src, const char *kernel,
                     unsigned wave_size);
void rpl_unroll_plan_free(rpl_unroll_plan *plan);

#endif
