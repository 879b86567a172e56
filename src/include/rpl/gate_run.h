/*
 * A gate run as `rocm-perf gate` makes it (measure, read the baseline,
 * compare, retry undecided changes, confirm a runtime failure, write the
 * reports), and the baseline update of `rocm-perf baseline update|accept`.
 */
#ifndef RPL_GATE_RUN_H
#define RPL_GATE_RUN_H

#include <stdbool.h>

#include "rpl/gate.h"
#include "rpl/strbuf.h"

typedef struct rpl_gate_opts {
    const char *test, *baseline_dir;
    rpl_gate_input in;
    rpl_gate_stat_opts stat;
    const char *junit, *json, *markdown; /* reports to write, or NULL */
    bool allow_missing;                  /* no baseline is a pass, not a failure */
    bool skip_if_no_checks;              /* a gate that compares nothing is a skip, not a FAIL */
    unsigned retry_undecided;   /* app mode: measure again while a runtime change is undecided */
    const char *reason;         /* baseline accept: why the baseline moves */
    bool require_stable_clocks; /* unstable clocks are RPL_EENV, not a WARN check */
    bool update;                /* record into the baseline instead of comparing */
} rpl_gate_opts;

/* The `rocm-perf baseline update ...` command that records this input (shell-quoted). */
int rpl_gate_update_command(rpl_strbuf *out, const rpl_gate_opts *o, const char *arch);

/*
 * Replace the measured section of the baseline at `path` (created when
 * missing; the measurement's kernels move into it) under a lock on its
 * folder, and append what changed to `report`.  A baseline of another test
 * or architecture, or a corrupt file, is RPL_EINPUT and stays untouched.
 */
int rpl_gate_update_baseline(const rpl_gate_opts *o, const char *path, rpl_gate_measurement *m,
                             rpl_strbuf *report);

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
