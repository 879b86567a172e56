/*
 * The options `rocm-perf optimize` and `rocm-perf llm-optimize` share: their
 * table, over rpl_optimize_opts (rpl/optimize.h), and --check-args.
 */
#ifndef RPL_OPTIMIZE_CLI_H
#define RPL_OPTIMIZE_CLI_H

#include <stdbool.h>

#include "rpl/optimize.h"
#include "rpl/parse_options.h"

typedef struct rpl_optimize_cli {
    rpl_optimize_opts opts;
    bool check_args;
} rpl_optimize_cli;

/*
 * The shared options, their fields in rpl_optimize_cli: a command's options
 * struct that includes this table starts with its rpl_optimize_cli.
 */
extern const rpl_option rpl_optimize_cli_options[];

#endif
