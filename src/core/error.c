/* Thread-local last error (see rpl/error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rpl/error.h"

#define RPL_ERROR_MAX 1024

static _Thread_local char error_text[RPL_ERROR_MAX];
static _Thread_local rpl_error last_error = {0, ""};

/*
 * Keep messages on one line: a caller's text may carry newlines or other
 * control characters (escape sequences) from input.
 */
static void flatten(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = ' ';
}

int rpl_error_set(int code, const char *fmt, ...)
{
    char text[RPL_ERROR_MAX];
    va_list ap;

    /* Format aside first: an argument may be the current message itself. */
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    memcpy(error_text, text, sizeof(error_text));
    flatten(error_text);
    last_error.code = code;
    last_error.message = error_text;
    return code;
}

void rpl_error_prefix(const char *fmt, ...)
{
    char text[RPL_ERROR_MAX];
    size_t n, old_len = strlen(error_text);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text) - 2, fmt, ap);
    va_end(ap);
    n = strlen(text);
    text[n++] = ':';
    text[n++] = ' ';
    /* Keep as much of the old message as fits after the prefix. */
    if (old_len > sizeof(text) - 1 - n)
        old_len = sizeof(text) - 1 - n;
    memcpy(text + n, error_text, old_len);
    text[n + old_len] = '\0';
    memcpy(error_text, text, sizeof(error_text));
    flatten(error_text);
    last_error.message = error_text;
}

int rpl_error_oom(void)
{
    return rpl_error_set(RPL_ENOMEM, "out of memory");
}

void rpl_error_clear(void)
{
    error_text[0] = '\0';
    last_error.code = 0;
    last_error.message = error_text;
}

const rpl_error *rpl_error_last(void)
{
    return &last_error;
}

int rpl_exit_code(int status)
{
    switch (status) {
    case 0:
        return RPL_EXIT_OK;
    case RPL_EFAIL:
        return RPL_EXIT_FAIL;
    case RPL_EUSAGE:
    case RPL_EINPUT:
    case RPL_ENOTFOUND:
        return RPL_EXIT_INPUT;
    case RPL_ENODEV:
        return RPL_EXIT_SKIP;
    default:
        return RPL_EXIT_ENV;
    }
}
