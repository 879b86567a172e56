/*
 * Capturing one kernel dispatch into a snapshot (rpl/snapshot.h): run an
 * application with the capture library injected and ASLR off, let it run
 * to its end, then check the snapshot it left.
 *
 * The application is started with personality(ADDR_NO_RANDOMIZE) set in
 * the parent just for the spawn (the flag is inherited and takes effect at
 * the child's execve), so that the device addresses of its allocations
 * repeat and a replay, also run without ASLR, can reserve them again
 * (docs/USER_GUIDE.md, "Capture and replay").
 *
 * The environment below is the contract with the capture libraries
 * (librpl_cupti.so through CUDA_INJECTION64_PATH, librpl_hsa.so through
 * HSA_TOOLS_LIB).  A library that sees RPL_CAPTURE_ENV_DIR captures the
 * RPL_CAPTURE_ENV_DISPATCH-th dispatch (0-based, default 0) whose kernel
 * name matches RPL_CAPTURE_ENV_KERNEL (POSIX extended regex, unanchored,
 * tried on the demangled name and then on the mangled one; absent or empty:
 * every kernel), writes it with rpl_snapshot_writer_* under exactly that
 * directory (which does not exist yet), and lets the application go on.
 */
#ifndef RPL_CAPTURE_H
#define RPL_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rpl/snapshot.h"

#define RPL_CAPTURE_ENV_DIR      "ROCM_PERF_CAPTURE_DIR"
#define RPL_CAPTURE_ENV_KERNEL   "ROCM_PERF_CAPTURE_KERNEL"
#define RPL_CAPTURE_ENV_DISPATCH "ROCM_PERF_CAPTURE_DISPATCH"

/* Override where the injected libraries are taken from (default: beside rocm-perf). */
#define RPL_CAPTURE_ENV_CUPTI_LIB "ROCM_PERF_CUPTI_LIB"
#define RPL_CAPTURE_ENV_HSA_LIB   "ROCM_PERF_HSA_LIB"

typedef enum rpl_capture_backend {
    RPL_CAPTURE_AUTO = 0, /* inject every capture library this rocm-perf has */
    RPL_CAPTURE_CUDA,
    RPL_CAPTURE_HSA
} rpl_capture_backend;

/* "auto", "cuda", "hsa"; RPL_EUSAGE for anything else. */
int rpl_capture_backend_parse(rpl_capture_backend *out, const char *name);

typedef struct rpl_capture_opts {
    const char *const *app_argv; /* NULL-terminated */
    const char *out_dir;         /* the snapshot directory; must not exist */
    const char *kernel_regex;    /* NULL or "": any kernel */
    uint64_t dispatch;           /* the N-th matching dispatch, 0-based */
    rpl_capture_backend backend;
} rpl_capture_opts;

typedef struct rpl_capture_result {
    rpl_snapshot *snap; /* the snapshot, opened and verified */
    bool app_exited;    /* the application exited (else a signal ended it) */
    int app_status;     /* its exit status, or the signal */
    bool aslr_disabled; /* it was started without ASLR */
} rpl_capture_result;

/*
 * Run the application and check its snapshot.  RPL_EUSAGE for a bad
 * regex, RPL_EINPUT when out_dir exists or when the application ended
 * without a complete snapshot (no matching dispatch, fewer than N+1, or the
 * application failed first: the message gives its status), RPL_ENOTFOUND
 * when the program cannot be run, RPL_EENV when no capture library is
 * found.  A snapshot written by an application that failed afterwards is
 * returned (look at app_exited/app_status).
 */
int rpl_capture_run(rpl_capture_result *out, const rpl_capture_opts *opts);
void rpl_capture_result_release(rpl_capture_result *r);

/* What was captured, for people: snapshot, kernel, backend, launch, memory, ASLR. */
void rpl_capture_summary_print(FILE *out, const rpl_capture_result *r);

#endif
