/*
 * Stored baselines: <baseline-dir>/<arch>/<test>.json, schema
 * docs/schemas/baseline.schema.json.  Two independent sections: "static"
 * (registers, LDS, scratch, spills, occupancy per kernel, from code objects)
 * and "runtime" (per-dispatch device durations, their summary and the
 * history of accepted medians per kernel, counters per dispatch).  Updating
 * one section keeps the other.  Files are written atomically with a stable
 * key order, one sample list per line.
 */
#ifndef RPL_BASELINE_H
#define RPL_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/codeobj.h"
#include "rpl/gpu_state.h"
#include "rpl/stats.h"
#include "rpl/strbuf.h"
#include "rpl/trace.h"

#define RPL_BASELINE_SCHEMA_VERSION "1.0"
#define RPL_BASELINE_HISTORY_MAX    10 /* K: accepted medians kept per kernel */
#define RPL_BASELINE_MAX_BYTES      (64u << 20)
#define RPL_BASELINE_RUNS_MAX       1000 /* history entries kept (for trends) */
/* The longest duration a baseline may hold, 1 day in ns: beyond it a value is no timing. */
#define RPL_BASELINE_MAX_NS 86400e9

/* Static resources of one kernel for one block size (-1: unknown). */
typedef struct rpl_static_kernel {
    char *name; /* mangled name as in the code object */
    int64_t vgpr, agpr, sgpr;
    int64_t lds_bytes, scratch_bytes;
    int64_t spills;      /* VGPR + SGPR spills */
    int64_t occupancy;   /* AMD waves per SIMD, NVIDIA blocks per SM; -1 unknown */
    char *occ_unit;      /* "waves_per_simd" or "blocks_per_sm", NULL when unknown */
    char *limiter;       /* occupancy limiter name, or NULL */
    unsigned block_size; /* block size the occupancy is for (0 when unknown) */
} rpl_static_kernel;

/* A counter's value per dispatch (median over the kept dispatches). */
typedef struct rpl_counter_figure {
    char *name;
    double value;
} rpl_counter_figure;

/* Runtime figures of one gated kernel. */
typedef struct rpl_runtime_kernel {
    char *name;      /* display name */
    double *samples; /* per-dispatch durations, ns, warm-up dropped, in dispatch order */
    size_t nsamples;
    rpl_duration_stats stats;
    double *history; /* medians (ns) of the last accepted runs, oldest first */
    size_t nhistory;
    rpl_counter_figure *counters;
    size_t ncounters;
    char *bottleneck; /* bottleneck class, or NULL */
} rpl_runtime_kernel;

/*
 * One recorded run of the runtime section (`baseline update` or `accept`):
 * when, on which commit and GPU, in which clock state, each kernel's
 * median, and for an accepted move the reason.
 */
typedef struct rpl_history_entry {
    char *date;     /* UTC, ISO 8601 */
    char *commit;   /* full id of HEAD of the repository holding the baseline, or NULL */
    char *device;   /* or NULL */
    char *driver;   /* or NULL */
    char *accepted; /* `baseline accept --reason`, or NULL */
    rpl_gpu_state gpu;
    rpl_counter_figure *medians; /* kernel name -> median ns */
    size_t nmedians;
} rpl_history_entry;

void rpl_history_entry_release(rpl_history_entry *e);

typedef struct rpl_baseline {
    char *test, *arch;
    char *device;  /* product name, or NULL */
    char *driver;  /* driver version, or NULL */
    char *toolkit; /* toolkit / producer version, or NULL */
    double tolerance;
    double confidence;
    unsigned warmup;
    bool has_static;
    unsigned block_size; /* --block of the static section, 0: each kernel's maximum */
    rpl_static_kernel *statics;
    size_t nstatics;
    bool has_runtime;
    rpl_runtime_kernel *kernels;
    size_t nkernels;
    rpl_history_entry *runs; /* oldest first, at most RPL_BASELINE_RUNS_MAX */
    size_t nruns;
} rpl_baseline;

int rpl_baseline_new(rpl_baseline **out, const char *test, const char *arch);
void rpl_baseline_free(rpl_baseline *b);

/*
 * <dir>/<arch>/<test>.json (*out, free()).  A test or arch name that is
 * empty, holds '/' or starts with '.' fails with RPL_EUSAGE.
 */
int rpl_baseline_path(char **out, const char *dir, const char *arch, const char *test);

/*
 * Read and check a baseline file.  RPL_ENOTFOUND when it does not exist,
 * RPL_EINPUT (naming the file and the field) when it is corrupt.
 */
int rpl_baseline_read(rpl_baseline **out, const char *path);

/* The same checks on `len` bytes of text; `name` names it in errors (RPL_EINPUT). */
int rpl_baseline_parse(rpl_baseline **out, const char *text, size_t len, const char *name);

/* Write atomically (temporary sibling + rename), creating the directory. */
int rpl_baseline_write(const rpl_baseline *b, const char *path);

/*
 * Lock the baseline at `path` for a read-modify-write (an update): an
 * advisory lock on its directory (created when missing), waiting up to
 * ROCM_PERF_LOCK_TIMEOUT seconds (default 60), else RPL_ETIMEOUT naming the
 * file.  Two updates at once then keep both their history entries.
 * Release with rpl_dir_unlock(*lock).
 */
int rpl_baseline_lock(int *lock, const char *path);

/* The document as text, as the file holds it (*out, free()). */
int rpl_baseline_print(char **out, const rpl_baseline *b);

/*
 * Static section from code objects: every kernel of `set` built for `arch`,
 * occupancy for `block` threads (0: the kernel's maximum workgroup size).
 * RPL_EINPUT when `set` holds no kernel for `arch`.
 */
int rpl_baseline_static_from_codeobj(rpl_static_kernel **out, size_t *n, const rpl_codeobj_set *set,
                                     const char *arch, unsigned block);

/* What the runtime section is built from. */
typedef struct rpl_runtime_opts {
    const char *kernel_regex; /* NULL: every non-helper kernel */
    unsigned warmup;          /* dispatches dropped per kernel and source (process) */
} rpl_runtime_opts;

/*
 * Runtime section from a trace: per selected kernel (display name), the
 * durations of its dispatches in start order with the first `warmup` of
 * each source dropped, their statistics and counters.  RPL_EINPUT when no
 * kernel is selected or a kernel has no dispatch left after the warm-up.
 */
int rpl_baseline_runtime_from_trace(rpl_runtime_kernel **out, size_t *n, const rpl_trace *trace,
                                    const rpl_runtime_opts *opts);

/* Device facts of a trace's first GPU agent (strings may stay NULL). */
int rpl_baseline_device_from_trace(rpl_baseline *b, const rpl_trace *trace);

void rpl_static_kernels_free(rpl_static_kernel *k, size_t n);
/* The strings of one entry (the array stays). */
void rpl_static_kernels_free_one(rpl_static_kernel *k);
void rpl_runtime_kernels_free(rpl_runtime_kernel *k, size_t n);

/*
 * Replace a section of `b` with new figures (ownership moves to `b`), and
 * append a line per change to `changes` ("kernel: metric old -> new").
 * Runtime: each kernel's history gains the new median (the oldest beyond
 * RPL_BASELINE_HISTORY_MAX is dropped); kernels absent from the new figures
 * are removed.
 */
int rpl_baseline_set_static(rpl_baseline *b, rpl_static_kernel *k, size_t n, unsigned block,
                            rpl_strbuf *changes);
int rpl_baseline_set_runtime(rpl_baseline *b, rpl_runtime_kernel *k, size_t n, rpl_strbuf *changes);

/*
 * Append a history entry for the runtime section just set: date now, the
 * commit of the repository that holds `baseline_path` (libgit2; none when
 * it is in no repository), device, driver and GPU state, each kernel's
 * median, and `reason` for an accepted move.  An accepted move also
 * restarts each kernel's history_ns at the new median, so that the gate's
 * run-to-run spread does not mix the old level with the new.
 */
int rpl_baseline_record_run(rpl_baseline *b, const char *baseline_path, const rpl_gpu_state *gpu,
                            const char *reason);

/* The latest entry with a valid GPU state, or NULL. */
const rpl_gpu_state *rpl_baseline_last_gpu_state(const rpl_baseline *b);

/* Differences between two baselines, one line each; nothing when equal. */
int rpl_baseline_diff(rpl_strbuf *out, const rpl_baseline *a, const rpl_baseline *b);

/* A readable rendering for `baseline show`. */
int rpl_baseline_describe(rpl_strbuf *out, const rpl_baseline *b);

/* `baseline show FILE`: the file read and described (rpl_baseline_read's failures). */
int rpl_baseline_show_file(rpl_strbuf *out, const char *path);
/* `baseline diff A B`: "A -> B:", then the differences or "  no differences". */
int rpl_baseline_diff_files(rpl_strbuf *out, const char *path_a, const char *path_b);

#endif
