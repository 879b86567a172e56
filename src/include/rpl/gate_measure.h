/*
 * Measuring a gate's input (rpl_gate_input into rpl_gate_measurement, both
 * in rpl/gate.h).  It sits above the gate (profile/): app mode runs the
 * program under the profiler.
 */
#ifndef RPL_GATE_MEASURE_H
#define RPL_GATE_MEASURE_H

#include "rpl/gate.h"

/*
 * Measure the input.  Static mode reads the code objects (the architecture
 * is --arch, or the only one the files hold); trace mode reads the traces
 * (their GPU's architecture; a different --arch is RPL_EINPUT); app mode runs
 * the program under rpl_profile_run (backend auto, no counters) once, and
 * again until every gated kernel has `repetitions` samples after warm-up or
 * the program has run `repetitions` times.  No GPU: RPL_ENODEV.
 */
int rpl_gate_measure(rpl_gate_measurement *out, const rpl_gate_input *in);

#endif
