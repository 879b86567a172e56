/*
 * Logging on stderr with levels, set by -q/-v on the command line or by
 * ROCM_PERF_LOG=error|warn|info|debug|trace, and a progress line that is
 * drawn only when stderr is a terminal.
 */
#ifndef RPL_LOG_H
#define RPL_LOG_H

#include <stdint.h>

typedef enum rpl_log_level {
    RPL_LOG_ERROR = 0,
    RPL_LOG_WARN = 1,
    RPL_LOG_INFO = 2,
    RPL_LOG_DEBUG = 3,
    RPL_LOG_TRACE = 4
} rpl_log_level;

void rpl_log_set_level(rpl_log_level level);
rpl_log_level rpl_log_get_level(void);
/* Parse a level name; returns -1 for an unknown name. */
int rpl_log_level_parse(const char *name);
/* Apply ROCM_PERF_LOG if it is set; returns RPL_EUSAGE for a bad value. */
int rpl_log_init_from_env(void);

void rpl_log(rpl_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define rpl_log_error(...) rpl_log(RPL_LOG_ERROR, __VA_ARGS__)
#define rpl_log_warn(...)  rpl_log(RPL_LOG_WARN, __VA_ARGS__)
#define rpl_log_info(...)  rpl_log(RPL_LOG_INFO, __VA_ARGS__)
#define rpl_log_debug(...) rpl_log(RPL_LOG_DEBUG, __VA_ARGS__)

/*
 * Progress of a long job: "label: done/total (pct%) ETA 1m05s" redrawn in
 * place at most ten times a second (the ETA after the first second, from the
 * average rate so far).  A no-op unless stderr is a TTY and -q is not given.
 * total 0 means unknown.
 */
typedef struct rpl_progress rpl_progress;

rpl_progress *rpl_progress_start(const char *label, uint64_t total);
void rpl_progress_update(rpl_progress *p, uint64_t done);
/* Erase the line and free; NULL is fine. */
void rpl_progress_finish(rpl_progress *p);

#endif
