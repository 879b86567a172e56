/* Command-line pieces shared by `rocm-perf gate` and `rocm-perf baseline update`. */
#ifndef RPL_GATE_CLI_H
#define RPL_GATE_CLI_H

#include <stdbool.h>

#include "rpl/gate_run.h"

typedef struct gate_args {
    rpl_gate_opts run;
    const char **statics; /* storage for run.in.static_files / run.in.traces */
    const char **traces;
} gate_args;

/*
 * Parse the gate options (update: only those `baseline update` takes).
 * Returns -1 when parsed, else the exit code to leave with (0 after --help).
 */
int gate_args_parse(gate_args *a, int argc, char **argv, bool update, void (*usage)(FILE *));
void gate_args_release(gate_args *a);

/* "3%", "3 %" (with percent_ok) or "0.03", strictly between lo and hi; else a usage error. */
int gate_parse_fraction(const char *opt, const char *arg, double lo, double hi, bool percent_ok,
                        double *out);

#endif
