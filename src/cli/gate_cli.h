/* Command-line pieces shared by `rocm-perf gate` and `rocm-perf baseline update`. */
#ifndef RPL_GATE_CLI_H
#define RPL_GATE_CLI_H

#include <stdbool.h>

#include "parse_options.h"
#include "rpl/gate.h"
#include "rpl/strbuf.h"

typedef struct gate_args {
    const char *test, *baseline_dir;
    rpl_gate_input in;
    rpl_gate_stat_opts stat;
    const char *junit, *json, *markdown;
    bool allow_missing;
    bool skip_if_no_checks;     /* a gate that compares nothing is a skip (77), not a FAIL */
    unsigned retry_undecided;   /* APP mode: measure again while a runtime change is undecided */
    const char *reason;         /* baseline accept: why the baseline moves */
    bool require_stable_clocks; /* unstable clocks are exit 3, not a WARN */
    const char **statics;       /* storage for in.static_files / in.traces */
    const char **traces;
} gate_args;

/* The options of a measurement (gate and baseline update), of gate alone, of baseline accept. */
extern const rpl_option gate_measure_options[], gate_only_options[], gate_accept_options[];

/*
 * Parse the options of `cmd` (gate's, or baseline update's) and the input
 * after them.  Returns -1 when parsed, else the exit code to leave with (0
 * after --help).
 */
int gate_args_parse(gate_args *a, const rpl_command *cmd, int argc, char **argv);
void gate_args_release(gate_args *a);

/* The `rocm-perf baseline update ...` command that records this input (shell-quoted). */
int gate_update_command(rpl_strbuf *out, const gate_args *a, const char *arch);

/*
 * Replace the measured section of the baseline at `path` (created when
 * missing) and print what changed.  A corrupt file is RPL_EINPUT and stays
 * untouched.
 */
int gate_update_baseline(const gate_args *a, const char *path, rpl_gate_measurement *m);

#endif
