/* The capture library's global state (ch_g) and its messages, shared by every file of it. */
#include <stdarg.h>
#include <stdio.h>

#include "rpl/error.h"
#include "tool_int.h"

ch_state ch_g = {.lock = PTHREAD_MUTEX_INITIALIZER};

void ch_say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, CH_PREFIX "%s\n", line);
}

int ch_hsa_failed(hsa_status_t st, const char *what)
{
    const char *msg = NULL;

    if (ch_g.core.hsa_status_string_fn)
        ch_g.core.hsa_status_string_fn(st, &msg);
    return rpl_error_set(RPL_ERROR, "%s: %s (0x%x)", what, msg ? msg : "HSA error", (unsigned)st);
}
