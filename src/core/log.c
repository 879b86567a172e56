/* Levelled logging on stderr (see rpl/log.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpl/error.h"
#include "rpl/log.h"

static rpl_log_level current_level = RPL_LOG_WARN;

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

void rpl_log_set_level(rpl_log_level level)
{
    current_level = level;
}

rpl_log_level rpl_log_get_level(void)
{
    return current_level;
}

int rpl_log_level_parse(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i <= RPL_LOG_TRACE; i++)
        if (strcasecmp(name, level_names[i]) == 0)
            return i;
    if (strcasecmp(name, "warning") == 0)
        return RPL_LOG_WARN;
    return -1;
}

int rpl_log_init_from_env(void)
{
    const char *env = getenv("ROCM_PERF_LOG");
    int level;

    if (!env || !env[0])
        return 0;
    level = rpl_log_level_parse(env);
    if (level < 0)
        return rpl_error_set(
            RPL_EUSAGE, "ROCM_PERF_LOG='%s' is not one of error, warn, info, debug, trace", env);
    current_level = (rpl_log_level)level;
    return 0;
}

void rpl_log(rpl_log_level level, const char *fmt, ...)
{
    int saved_errno = errno; /* callers log and then report strerror(errno) */
    va_list ap;

    if ((int)level < RPL_LOG_ERROR || level > RPL_LOG_TRACE || level > current_level)
        return;
    /* One line per call, even with several threads logging. */
    flockfile(stderr);
    fprintf(stderr, "rocm-perf: %s: ", level_names[level]);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    funlockfile(stderr);
    errno = saved_errno;
}
