/*
 * The options of a gate run, and the baseline update of `rocm-perf baseline
 * update|accept` (gate/baseline_record.c).
 */
#ifndef RPL_BASELINE_RECORD_H
#define RPL_BASELINE_RECORD_H

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

/*
 * The options as a command gives them, before anything is measured:
 * RPL_EUSAGE unless the test and the baseline folder are named and exactly
 * one input is (static files, traces, or a program, which must not be
 * empty); the block size goes with static files, keep_trace with a program;
 * `reason` is given exactly when `accepting` (baseline accept), and with a
 * runtime input.
 */
int rpl_gate_opts_check(const rpl_gate_opts *o, bool accepting);

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

#endif
