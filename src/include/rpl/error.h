/*
 * Error convention of rocm-perf-lab, in the manner of libgit2: functions
 * return 0 or a negative RPL_E* code and leave a one-line message for
 * rpl_error_last().  The message is thread-local.
 */
#ifndef RPL_ERROR_H
#define RPL_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum rpl_status {
    RPL_OK = 0,
    RPL_ERROR = -1,     /* unexpected failure (a bug or the OS) */
    RPL_ENOMEM = -2,    /* out of memory */
    RPL_EUSAGE = -3,    /* bad command line or API misuse */
    RPL_EINPUT = -4,    /* input file is malformed, corrupt or inconsistent */
    RPL_ENOTFOUND = -5, /* a named file, kernel or record does not exist */
    RPL_EIO = -6,       /* reading or writing a file failed */
    RPL_EENV = -7,      /* a tool or library the work needs is missing */
    RPL_ETIMEOUT = -8,  /* a child process ran past its time limit */
    RPL_ENODEV = -9,    /* no suitable GPU or profiler */
    RPL_EFAIL = -10     /* a gate failed: the answer is "regression" */
};

/* Process exit codes of the rocm-perf command. */
enum rpl_exit {
    RPL_EXIT_OK = 0,
    RPL_EXIT_FAIL = 1,
    RPL_EXIT_INPUT = 2,
    RPL_EXIT_ENV = 3,
    RPL_EXIT_SKIP = 77
};

typedef struct rpl_error {
    int code;
    const char *message;
} rpl_error;

/* The last error set on this thread; never NULL (code 0, "" when none). */
const rpl_error *rpl_error_last(void);

/* Set the thread's error and return `code`, so `return rpl_error_set(...)` works. */
int rpl_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefix the current message with "<context>: " (keeps the code). */
void rpl_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Set RPL_ENOMEM with a fixed message and return it. */
int rpl_error_oom(void);

void rpl_error_clear(void);

/* Map a status code to the exit code of the rocm-perf command. */
int rpl_exit_code(int status);

#ifdef __cplusplus
}
#endif
#endif
