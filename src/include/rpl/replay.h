/*
 * VA-faithful replay of a snapshot (rpl/snapshot.h): reserve the captured
 * address ranges at their addresses, map and restore them, load the code
 * object (the captured one or a candidate), launch with the captured
 * parameters and geometry, time on the device, and compare what the kernel
 * wrote with the captured post-dispatch image.
 *
 * Backends: CUDA through the driver API's VMM calls (libcuda.so.1 loaded at
 * run time) and HSA through hsa_amd_vmem_* with a hand-built AQL packet
 * (libhsa-runtime64.so.1 loaded at run time).  Nothing is relocated: a
 * range that comes back at another address is an error (RPL_EFAIL with
 * relocation set), never patched.
 *
 * The process that replays must run with ASLR off (personality
 * ADDR_NO_RANDOMIZE), as the capture did: rpl_replay_ensure_no_aslr()
 * re-executes the current program that way when it is not.
 */
#ifndef RPL_REPLAY_H
#define RPL_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "rpl/snapshot.h"

#define RPL_REPLAY_SCHEMA_VERSION "1.0"

/* Set in the environment across the one re-execution (and removed after it). */
#define RPL_REPLAY_NO_ASLR_MARKER "ROCM_PERF_NO_ASLR_REEXEC"

/*
 * When the process runs with ASLR on, re-execute /proc/self/exe with the
 * same argv (the program's whole argv, argv[0] included) under
 * personality(ADDR_NO_RANDOMIZE) (an environment marker stops a loop);
 * returns only when ASLR is already off (also system-wide:
 * randomize_va_space 0), or with RPL_EENV when personality() or exec fails
 * (a seccomp filter may forbid the flag), the process unchanged.  Either
 * way it also keeps every thread's malloc in the main heap (M_ARENA_MAX 1):
 * a thread arena mapped under the libraries would push the driver's address
 * arena further from where the application's was.
 */
int rpl_replay_ensure_no_aslr(char **argv);

/* Whether this process runs without ASLR. */
bool rpl_replay_aslr_disabled(void);

/*
 * The checks a code object passes before any GPU call: it holds code for
 * the snapshot's architecture (AMD: with no conflicting xnack/sramecc
 * setting), that code has the snapshot's kernel symbol, its explicit
 * parameters (AMD metadata .args without hidden_*, cubin KPARAM_INFO) have
 * the offsets and sizes of the snapshot's params, its kernarg segment is no
 * larger than the captured one, and its launch bound admits the captured
 * block.  `path` is the captured code object or a candidate (cubin,
 * fatbin, hsaco, offload bundle).  RPL_EINPUT with one line naming the file
 * and the problem.
 */
int rpl_replay_check_code_object(const rpl_snapshot *snap, const char *path);

/* Outcome of reserving the captured ranges (reserve-check, and step 1 of a replay). */
typedef struct rpl_reserve_report {
    size_t nspans;      /* ranges after merging to the backend's granularity */
    size_t reserved;    /* spans that came back at the requested address */
    bool relocation;    /* a span came back elsewhere */
    bool failure;       /* a reservation failed outright */
    uint64_t first_bad; /* the first span that failed or moved */
    uint64_t got;       /* where it moved to (relocation) */
    char detail[256];   /* one line */
} rpl_reserve_report;

typedef struct rpl_replay_opts {
    unsigned iterations;     /* timed launches, >= 1 */
    unsigned warmup;         /* untimed launches before them */
    bool recopy;             /* restore every region before every launch (default) */
    const char *code_object; /* candidate code object, or NULL: the captured one */
    bool check;              /* compare after the first timed launch */
    unsigned check_runs;     /* launches compared (>= 1 with check): >1 also proves
                                that repeated runs give identical bytes */
    bool poison;             /* fill written regions before the compared launches,
                                where the captured kernel tolerates it */
    bool have_tolerance;     /* override the per-type defaults */
    rpl_tolerance tolerance;
    bool device_pristine; /* restore from a device-resident pristine copy when it
                             fits in free device memory (default) */
} rpl_replay_opts;

void rpl_replay_opts_init(rpl_replay_opts *o);

/* The comparison of one region (or global) after a compared launch. */
typedef struct rpl_region_check {
    uint64_t base, size;
    bool global;   /* a module global rather than a region */
    bool poisoned; /* filled before the launch */
    rpl_compare_state cmp;
    bool identical_runs; /* with check_runs > 1: every run gave the same bytes */
} rpl_region_check;

typedef struct rpl_replay_result {
    char *snapshot;                         /* its directory */
    char *backend, *arch, *device, *kernel; /* kernel: demangled name */
    char *code_object;                      /* the file that was launched */
    bool candidate;                         /* code_object came from --code-object */
    bool aslr_disabled;                     /* the replaying process ran without ASLR */
    unsigned iterations, warmup;
    bool recopy;
    double *times_ns; /* device time of each timed launch */
    size_t ntimes;
    double mean_ns, median_ns, min_ns, max_ns, stddev_ns;
    double wall_s; /* the timed loop, restores included */
    char *timer;   /* how launches were timed ("cupti-kernel", "cuda-event", "hsa-signal") */
    uint64_t restore_bytes;   /* bytes restored before each launch */
    double restore_gbps;      /* restore speed (median) */
    double d2d_gbps;          /* a plain device-to-device copy of the same bytes */
    bool restore_from_device; /* the pristine copy was device-resident */
    rpl_reserve_report reserve;
    char fault[256]; /* a launch the device failed (the kernel faulted), one line; "" when none */
    bool checked, check_passed, deterministic;
    unsigned check_runs; /* launches compared */
    rpl_region_check *checks;
    size_t nchecks;
    size_t globals_left_out; /* snapshot globals the code object lacks, unchanged by the dispatch */
} rpl_replay_result;

/*
 * Reserve (and free again) every captured range.  0 when all came back
 * exact, RPL_EFAIL when one failed or moved (out->failure / out->relocation
 * say which), RPL_EENV without the driver library, RPL_ENODEV without a GPU.
 * Reads only the metadata: no digests are checked.
 */
int rpl_replay_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap);

/*
 * Replay.  RPL_EINPUT for a snapshot or candidate that does not fit (other
 * architecture, missing kernel symbol, different parameter layout), RPL_EFAIL
 * for a reservation that failed or moved, or for a launch the device failed
 * (*out then holds the report: (*out)->reserve, (*out)->fault),
 * RPL_ENODEV without a suitable GPU, RPL_EENV without the driver library.
 * A failed comparison is no error: look at (*out)->check_passed.
 */
int rpl_replay_run(rpl_replay_result **out, const rpl_snapshot *snap, const rpl_replay_opts *opts);
void rpl_replay_result_free(rpl_replay_result *r);

/*
 * The report of a replay: the text of `rocm-perf replay full-vm` (seed
 * 001 section 8.4's lines first, then median, spread, restore speed and the
 * check of every region), and the JSON of --json
 * (docs/schemas/replay-result.schema.json).
 */
int rpl_replay_result_print(FILE *out, const rpl_replay_result *r);

/*
 * One line on why a replay's check failed: the first region with differing
 * elements ("check failed: region 0x...: 12 of 1024 f32 elements differ,
 * first at 0x... (got 1, want 2)"), else that repeated launches differed.
 */
void rpl_replay_check_failure_print(FILE *out, const rpl_replay_result *r);
int rpl_replay_result_json(cJSON **out, const rpl_replay_result *r);

/*
 * The one line (without "rocm-perf: ") and the exit code of a replay that
 * ended in RPL_EFAIL: a kernel that faulted is the candidate's failure (exit
 * 1, "the replayed kernel failed on the device: ..."); a reservation that
 * failed or moved is the environment's (exit 3, "reservation failed: ..." or
 * "relocation: ...", with "(ASLR is on in this process)" when it was).
 */
int rpl_replay_failure(char *line, size_t cap, const rpl_replay_result *r);

/*
 * `rocm-perf replay reserve-check DIR`: open the snapshot in `dir`, reserve
 * its ranges and print "Reserved N of M spans at the captured addresses."
 * to `out`.  RPL_EFAIL when a range failed or moved (*relocation says
 * which), its line the message ("relocation: ..." or "reservation failed:
 * ...", "(ASLR is on in this process)" when it was); else as
 * rpl_snapshot_open and rpl_replay_reserve_check fail.
 */
int rpl_replay_reserve_check_dir(const char *dir, bool *relocation, FILE *out);

/* rpl_replay_run on the snapshot in `dir` (rpl_snapshot_open's failures too). */
int rpl_replay_run_dir(rpl_replay_result **out, const char *dir, const rpl_replay_opts *opts);

/* The report to `out`: rpl_replay_result_print's text, or with `json` the JSON document. */
int rpl_replay_result_write(FILE *out, const rpl_replay_result *r, bool json);

#endif
