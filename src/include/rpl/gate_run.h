/*
 * A gate run as `rocm-perf gate` makes it (measure, read the baseline,
 * compare, retry undecided changes, confirm a runtime failure, write the
 * reports): profile/gate_run.c, above the profilers it measures with.
 */
#ifndef RPL_GATE_RUN_H
#define RPL_GATE_RUN_H

#include "rpl/baseline_record.h"

/* What a gate run leaves for its caller. */
typedef struct rpl_gate_outcome {
    rpl_gate_result *result; /* NULL when the run updated the baseline (o->update) */
    rpl_strbuf text;         /* for people: the gate's text, or what the update changed */
    rpl_strbuf notice;       /* the baseline is missing, and how to create it; else empty */
} rpl_gate_outcome;

/*
 * Measure o->in and gate it against DIR/<arch>/<test>.json, writing the
 * reports o names (or with o->update, record it into the baseline).  A
 * missing baseline fails the result (or passes it with allow_missing) and
 * fills out->notice; the notice is kept when a later step fails.
 */
int rpl_gate_run(rpl_gate_outcome *out, const rpl_gate_opts *o);
void rpl_gate_outcome_release(rpl_gate_outcome *out);

#endif
