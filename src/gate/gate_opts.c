/* The inputs of a gate or a baseline update, checked before anything is measured. */
#include "rpl/baseline_record.h"
#include "rpl/error.h"

int rpl_gate_opts_check(const rpl_gate_opts *o, bool accepting)
{
    const rpl_gate_input *in = &o->in;
    int modes = (in->nstatic > 0) + (in->ntraces > 0) + (in->app_argv != NULL);

    if (in->block && !in->nstatic)
        return rpl_error_set(RPL_EUSAGE, "--block applies to --static only");
    if (!o->test || !o->baseline_dir)
        return rpl_error_set(RPL_EUSAGE, "--test NAME and --baseline-dir DIR are required");
    if (modes != 1)
        return rpl_error_set(RPL_EUSAGE,
                             "give exactly one of --static FILE..., --trace DB... or -- APP");
    if (in->app_argv && !in->app_argv[0])
        return rpl_error_set(RPL_EUSAGE, "no program after '--'");
    if (!in->app_argv && in->keep_trace)
        return rpl_error_set(RPL_EUSAGE,
                             "--keep-trace keeps the trace of a program run: it goes with -- APP");
    if (accepting && !o->reason)
        return rpl_error_set(RPL_EUSAGE,
                             "baseline accept needs --reason TEXT (why the baseline moves)");
    if (!accepting && o->reason)
        return rpl_error_set(RPL_EUSAGE, "--reason belongs to 'baseline accept'");
    if (o->reason && in->nstatic)
        return rpl_error_set(RPL_EUSAGE,
                             "baseline accept records runtime moves: give --trace or -- APP");
    return 0;
}
