/*
 * Profiling backends: run a program under rocprofv3 (AMD) or our CUPTI
 * recorder (NVIDIA) and read what it wrote into one rpl_trace, with counter
 * passes merged; GPU detection for `--backend auto`; the counter sets of
 * each architecture; and the import of rocprofv3 CSV output (ROCm 6.x, which
 * writes no rocpd).
 */
#ifndef RPL_PROFILE_BACKEND_H
#define RPL_PROFILE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rpl/trace.h"

typedef enum rpl_backend {
    RPL_BACKEND_AUTO = 0,
    RPL_BACKEND_ROCPROFV3,
    RPL_BACKEND_CUPTI
} rpl_backend;

/* "auto", "rocprofv3" or "cupti"; anything else is RPL_EUSAGE. */
int rpl_backend_parse(rpl_backend *out, const char *name);
const char *rpl_backend_name(rpl_backend backend);

/* What GPUs this machine has, as the drivers show them. */
typedef struct rpl_gpu_probe {
    bool amd;             /* /dev/kfd exists and a KFD topology node has simd_count > 0 */
    bool nvidia;          /* /dev/nvidia0 or /proc/driver/nvidia/gpus/<bus id> exists */
    char amd_arch[16];    /* "gfx942": gfx_target_version of the first AMD GPU node, or "" */
    char nvidia_arch[16]; /* "sm_90": the first NVIDIA GPU's (by bus id) from its model name, or
                             "" */
    char detail[256];     /* what was found missing, for messages */
} rpl_gpu_probe;

/* One GPU as the driver shows it. */
typedef struct rpl_gpu_entry {
    const char *vendor; /* "amd" or "nvidia" */
    char arch[16];      /* "gfx90a", "sm_90" (from the model name), or "" when unknown */
    char model[96];     /* NVIDIA: the driver's model line, or "" */
    char source[160];   /* the driver file it was found through, below the root */
} rpl_gpu_entry;

#define RPL_GPU_LIST_MAX 64

/* Every GPU found: AMD ones first, then NVIDIA ones; ids count from 0 in that order. */
typedef struct rpl_gpu_list {
    rpl_gpu_entry gpus[RPL_GPU_LIST_MAX];
    size_t count;
    bool kfd; /* /dev/kfd exists */
} rpl_gpu_list;

/*
 * The GPUs below `root` ("" or NULL for the running system): AMD GPUs from
 * the KFD topology (nodes with SIMDs, by node number, the order HIP numbers
 * them; only with /dev/kfd), then NVIDIA GPUs by bus id from
 * /proc/driver/nvidia/gpus (the CUDA order with CUDA_DEVICE_ORDER=PCI_BUS_ID),
 * or without it one per /dev/nvidiaN.  Past RPL_GPU_LIST_MAX a warning is
 * logged.  Never fails for a missing file.
 */
void rpl_gpu_list_scan(rpl_gpu_list *list, const char *root);

/* The table of `rocm-perf gpus`: a header, then ID, vendor, arch, model and where found. */
void rpl_gpu_list_print(FILE *out, const rpl_gpu_list *list);

/*
 * Write a CTest resource specification with one slot per GPU of `list` to
 * `path` ({"version":{"major":1,"minor":0},"local":[{"gpus":[{"id":"0",
 * "slots":1},...]}]}), atomically.
 */
int rpl_gpu_resource_spec_write(const char *path, const rpl_gpu_list *list);

/*
 * simd_count and gfx_target_version of one KFD topology node's properties
 * file (both 0 when the file or a key is missing).
 */
void rpl_kfd_node_read(const char *path, uint64_t *simd_count, uint64_t *gfx_version);

/*
 * The node numbers in a KFD topology `nodes_dir` (its numeric entries), in
 * ascending order (the order HIP numbers the GPUs), at most `max` of them;
 * 0 when the directory cannot be read.
 */
size_t rpl_kfd_node_list(long *nodes, size_t max, const char *nodes_dir);

/*
 * Look for GPUs below `root` ("" for the running system; tests pass a fake
 * tree holding dev/, sys/class/kfd/kfd/topology/nodes/N/properties and
 * proc/driver/nvidia/gpus/).  Never fails for a missing file.
 */
int rpl_gpu_probe_run(rpl_gpu_probe *out, const char *root);

/* The "Model:" line of /proc/driver/nvidia/gpus/<bus>/information into `model` ("" when none). */
void rpl_nvidia_model_read(const char *path, char *model, size_t size);

/*
 * The CUDA architecture ("sm_90") of an NVIDIA GPU from its model name as
 * the driver shows it ("NVIDIA H100 PCIe"): a product of the arch table, else
 * the family the name belongs to.  NULL when the name is not known.
 */
const char *rpl_nvidia_model_arch(const char *model);

/*
 * Resolve `requested`: AUTO becomes ROCPROFV3 with an AMD GPU, else CUPTI
 * with an NVIDIA GPU, else RPL_ENODEV ("no AMD or NVIDIA GPU found (...)").
 * An explicit backend is kept as asked (its tool then says what is missing).
 */
int rpl_backend_select(rpl_backend *out, rpl_backend requested, const rpl_gpu_probe *probe);

/* Name of an architecture from a KFD gfx_target_version: 90402 -> "gfx942", 90010 -> "gfx90a". */
int rpl_gfx_name(char *buf, size_t size, uint32_t gfx_target_version);

/* Counter collection plan: the counters of each pass (one run of the program per pass). */
typedef struct rpl_counter_pass {
    char **names;
    uint32_t count;
} rpl_counter_pass;

typedef struct rpl_counter_plan {
    rpl_counter_pass *passes;
    uint32_t npasses; /* 0 for "none" */
} rpl_counter_plan;

/*
 * Plan the passes for `spec`: "none"; "roofline", the FLOP and HBM-byte
 * counters of `arch` (gfx90a, gfx940/941/942, gfx950; others are
 * RPL_ENOTFOUND); or a list of counter names separated by commas or spaces.
 * Counters are packed first-fit into passes by hardware block (the name up
 * to its first '_') under rocprofiler-compute's per-pass limits; the counters
 * of one byte formula stay in one pass so they come from the same run.
 */
int rpl_counter_plan_make(rpl_counter_plan **out, const char *spec, const char *arch);
void rpl_counter_plan_free(rpl_counter_plan *plan);

/*
 * The rocprofv3 input file for a plan: {"jobs":[{"pmc":[...]}, ...]}
 * (ROCm 7.0-7.2 multi-pass; each job writes below <dir>/pass_<N>/).
 * *out is free()d by the caller.
 */
int rpl_rocprofv3_passes_json(char **out, const rpl_counter_plan *plan);

/*
 * The same as text, one "pmc: A B C" line per pass: the input form every
 * rocprofv3 since ROCm 6.2 reads (ROCm 6.2's JSON form differs from 7.x);
 * each line writes below <dir>/pmc_<N>/.
 */
int rpl_rocprofv3_passes_text(char **out, const rpl_counter_plan *plan);

typedef struct rpl_rocprofv3_cmd {
    const char *rocprofv3;       /* path of the rocprofv3 program */
    const char *output_dir;      /* -d */
    const char *output_format;   /* "rocpd" (ROCm 7) or "csv" (ROCm 6.x) */
    const char *input_file;      /* -i passes.json (or .txt), or NULL: a trace-only run */
    const char *kernel_regex;    /* --kernel-include-regex, or NULL */
    const char *iteration_range; /* --kernel-iteration-range "[FIRST-LAST]", or NULL: all */
    bool att;                    /* --att */
    const char *const *app_argv; /* NULL-terminated */
    const char *output_file;     /* -o; NULL: "%hostname%/%pid%" (ROCm 6.2 knows only %pid%) */
} rpl_rocprofv3_cmd;

/* The argv (NULL-terminated, free() the array only; the strings are borrowed). */
int rpl_rocprofv3_argv(const char ***out, const rpl_rocprofv3_cmd *cmd);

/*
 * Find rocprofv3: PATH, then $ROCM_PATH/bin, then /opt/rocm/bin when
 * ROCM_PATH is unset.  RPL_EENV with a hint when it is nowhere.
 */
int rpl_rocprofv3_find(char **out);

/*
 * Read what one rocprofv3 (or CUPTI recorder) run left in `dir`: the
 * databases <dir>/<host>/<pid>_results.db, or with counter passes
 * <dir>/pass_<N>/<host>/<pid>_results.db, where pass 1 gives the trace and
 * the counters of later passes are merged by dispatch.  Without databases,
 * rocprofv3 CSV files (<pid>_kernel_trace.csv and siblings) are imported the
 * same way.  The paths read are appended to *files (free each and the array).
 * RPL_ENOTFOUND when the directory holds no output.
 */
int rpl_profile_read_dir(rpl_trace *trace, const char *dir, char ***files, uint32_t *nfiles);

/*
 * A counter run's output read for its counters only: the dispatches (and
 * their times) from the run without counters in `timing_dir`, the counters
 * of every pass below `counter_dir` merged into them by dispatch.  Counter
 * collection serialises and slows dispatches, so its times are not used.
 * `stopped_early`: the counter run may have ended once its sample was
 * measured, so it may hold only the first dispatches of each kernel.
 */
int rpl_profile_read_timed(rpl_trace *trace, const char *timing_dir, const char *counter_dir,
                           bool stopped_early, char ***files, uint32_t *nfiles);

/* What a rocprofv3 CSV file holds, told by its header row (never by its name). */
typedef enum rpl_rocprofv3_csv_kind {
    RPL_CSV_NOT_ROCPROFV3 = 0, /* unreadable, empty, or another header */
    RPL_CSV_KERNEL_TRACE,
    RPL_CSV_AGENT_INFO,
    RPL_CSV_MEMORY_COPY,
    RPL_CSV_COUNTERS
} rpl_rocprofv3_csv_kind;

rpl_rocprofv3_csv_kind rpl_rocprofv3_csv_kind_of(const char *path);
const char *rpl_rocprofv3_csv_kind_name(rpl_rocprofv3_csv_kind kind);

/*
 * Import the rocprofv3 CSV files of one process: `kernel_trace_csv` is a
 * file whose header row is a kernel trace's (whatever its name).  When its
 * name is "<prefix>kernel_trace<rest>.csv", "<prefix>agent_info.csv",
 * "<prefix>memory_copy_trace.csv" and "<prefix>counter_collection.csv" are
 * read too when they exist and their headers say so.  Columns are found by
 * header name (ROCm 6.2 to 6.4 spellings), unknown columns are ignored; a
 * missing required column, a bad number, end < start, a record over the
 * length limit or a broken quote fail with RPL_EINPUT naming the file and
 * line.  Counter rows whose correlation id has no dispatch are left out
 * with one warning that counts them.  On failure `trace` is left as it was.
 */
int rpl_rocprofv3_csv_import(rpl_trace *trace, const char *kernel_trace_csv);

/* The four inputs of one import as open streams (any may be NULL but the kernel trace). */
typedef struct rpl_rocprofv3_csv_files {
    FILE *kernel_trace;
    FILE *agent_info;
    FILE *memory_copy;
    FILE *counters;
    const char *label; /* names the input in messages and in the trace's source */
    int64_t pid;       /* process id (from the file name), 0 when unknown */
} rpl_rocprofv3_csv_files;

int rpl_rocprofv3_csv_import_files(rpl_trace *trace, const rpl_rocprofv3_csv_files *files);

/*
 * How the CUPTI recorder times kernels in a trace-only run
 * (ROCM_PERF_CUPTI_KERNELS).  Concurrent-kernel tracing instruments the
 * kernel code and slows kernels made of many short thread blocks by several
 * percent; serial tracing leaves the code alone but runs no two kernels at
 * once (docs/USER_GUIDE.md, "Kernel timing").  rocprofv3 ignores it: its
 * times come from the dispatch packets' completion signals.
 */
typedef enum rpl_kernel_timing {
    RPL_KERNEL_TIMING_CONCURRENT = 0,
    RPL_KERNEL_TIMING_SERIAL,
} rpl_kernel_timing;

/* "concurrent" or "serial"; anything else is RPL_EUSAGE. */
int rpl_kernel_timing_parse(rpl_kernel_timing *out, const char *name);

/*
 * The profiler of program runs (rpl_backend) from ROCM_PERF_BACKEND and the
 * CUPTI kernel timing (rpl_kernel_timing) from ROCM_PERF_KERNEL_TIMING, each
 * when set; else left as they are.  A bad value is RPL_EUSAGE.
 */
int rpl_profiler_env(int *backend, int *kernel_timing);

/* --counter-dispatches all: every dispatch of each kernel after the skipped ones. */
#define RPL_COUNTER_DISPATCHES_ALL UINT32_MAX
/* The sample when none is asked for: the first 3 dispatches of each kernel. */
#define RPL_COUNTER_DISPATCHES_DEFAULT 3

/* What `rocm-perf profile` asks of a backend. */
typedef struct rpl_profile_opts {
    rpl_backend backend;             /* AUTO resolves through rpl_gpu_probe_run */
    const char *counters;            /* "roofline", "none" or a list; NULL: roofline where the
                                        architecture has a set, else none */
    const char *arch;                /* counter-set architecture; NULL: the probed AMD GPU */
    bool att;                        /* rocprofv3 thread trace */
    const char *kernel_regex;        /* counters (and ATT) only for kernels matching it */
    uint32_t counter_skip;           /* dispatches of each kernel not measured first */
    uint32_t counter_dispatches;     /* dispatches of each kernel measured after them;
                                        RPL_COUNTER_DISPATCHES_ALL: every one; 0: the default */
    const char *out_dir;             /* exists; the backend writes below it */
    const char *const *app_argv;     /* NULL-terminated */
    const char *probe_root;          /* "" for the running system */
    rpl_kernel_timing kernel_timing; /* CUPTI trace-only runs */
    const char *const *launcher;     /* words run before the profiler's command line (a
                                        scheduler prefix such as srun), NULL-terminated, or NULL */
    const char *const *env_set;      /* "NAME=VALUE" entries for the run (device visibility),
                                        NULL-terminated, or NULL */
    int timeout_ms;                  /* 0: none; else the run is stopped (RPL_ETIMEOUT) */
    bool quiet_app;                  /* capture the program's output instead of passing it on;
                                        a failure's message ends with its last stderr line */
} rpl_profile_opts;

typedef struct rpl_profile_result {
    rpl_backend backend; /* the one that ran */
    rpl_trace *trace;    /* passes merged */
    char **files;        /* databases (or CSV files) read */
    uint32_t nfiles;
    char *run_dir;          /* where the backend wrote, below out_dir */
    char arch[16];          /* architecture of the counter set, or "" */
    char *counters;         /* the counter spec used: "roofline", "none" or a list */
    rpl_counter_plan *plan; /* rocprofv3's passes (npasses 0: none; cupti: none, the
                               recorder replays kernels itself) */
    bool csv_fallback;      /* rocprofv3 had no rocpd output: CSV was imported */
    char *timing_dir;       /* with counters: the run without counters that gave the
                               dispatch times (counter collection distorts them), or NULL */

    /* With counters, the sample measured: after counter_skip dispatches of each kernel,
     * counter_dispatches of them (or RPL_COUNTER_DISPATCHES_ALL). */
    uint32_t counter_skip, counter_dispatches;
    bool counter_stopped_early; /* the counter run was ended once its sample was measured */
} rpl_profile_result;

/*
 * Run the program under the backend and read its output.  Failures come
 * back with one-line reasons: the profiler is missing (RPL_EENV, with where
 * it was looked for), no GPU (RPL_ENODEV), /dev/kfd not accessible
 * (RPL_EENV with the fix), the program's own non-zero exit (RPL_ERROR with
 * its status), no output written (RPL_EENV), the time limit (RPL_ETIMEOUT).
 * With a launcher the command is launcher words + the profiler's command
 * (rocprofv3 ... -- APP, or APP with the CUPTI environment).
 */
int rpl_profile_run(rpl_profile_result **out, const rpl_profile_opts *opts);
void rpl_profile_result_free(rpl_profile_result *result);

/*
 * Without running a profiler: read what one left, into r->trace (created
 * here).  Each path is a profiler output folder (rpl_profile_read_dir; its
 * files are appended to r->files), a rocprofv3 CSV (by its name or its
 * header row) or a rocpd database.  A folder with no output is RPL_EINPUT.
 */
int rpl_profile_import(rpl_profile_result *r, const char *const *paths, size_t n);

/* What `rocm-perf profile` asks for. */
typedef struct rpl_profile_analyze_opts {
    rpl_profile_opts run;      /* out_dir: where profile.db and the analysis go */
    bool no_profiler;          /* run.app_argv with no profiler, or else import `traces` */
    const char *const *traces; /* without a profiler: what one left (rpl_profile_import) */
    size_t ntraces;
    bool json; /* print profile.json instead of the table; the program's output goes to stderr */
} rpl_profile_analyze_opts;

/*
 * Run run.app_argv under the profiler (rpl_profile_run), or read `traces`,
 * write the merged trace as run.out_dir/profile.db and analyse it as
 * rpl_analyze_run does with that folder (the table or profile.json to
 * `out`); after a counter run, a line says where its times and counters
 * come from.  With no_profiler and a program: run it plainly and print its
 * wall-clock time to `out`.  Failures as those functions report them; a
 * program that fails without a profiler is RPL_EENV.
 */
int rpl_profile_analyze_run(const rpl_profile_analyze_opts *o, FILE *out);

#endif
