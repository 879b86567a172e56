/* Command-line pieces shared by `rocm-perf gate` and `rocm-perf baseline update`. */
#ifndef RPL_GATE_CLI_H
#define RPL_GATE_CLI_H

#include <stdbool.h>

#include "rpl/gate_run.h"
#include "rpl/parse_options.h"

typedef struct gate_args {
    rpl_gate_opts run;
    const char **statics; /* storage for run.in.static_files / run.in.traces */
    const char **traces;
} gate_args;

/* The options of a measurement (gate and baseline update), of gate alone, of baseline accept. */
extern const rpl_option gate_measure_options[], gate_only_options[], gate_accept_options[];

/*
 * Parse the options of `cmd` (gate's, or baseline update's or accept's:
 * `accepting`) and the input after them.  Returns -1 when parsed, else the
 * exit code to leave with (0 after --help).
 */
int gate_args_parse(gate_args *a, const rpl_command *cmd, bool accepting, int argc, char **argv);
void gate_args_release(gate_args *a);

#endif
