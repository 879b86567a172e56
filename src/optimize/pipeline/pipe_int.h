/* Internals of the candidate pipeline (rpl/pipeline.h). */
#ifndef RPL_PIPE_INT_H
#define RPL_PIPE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "rpl/baseline.h"
#include "rpl/clock.h"
#include "rpl/kernel_source.h"
#include "rpl/optgit.h"
#include "rpl/pipeline.h"
#include "rpl/rng.h"
#include "rpl/spawn.h"
#include "rpl/strbuf.h"

/* What the pipeline knows of one kernel: its snapshot, captured once from the original. */
typedef struct pipe_kernel {
    char *name;          /* as the candidate named it */
    char *display;       /* the kernel's name in the source */
    char *mangled;       /* the device symbol ("" for a template: matched by the snapshot's) */
    char *demangled;     /* the snapshot's demangled name ("void k<16u>(float*)"), or NULL */
    char *snapshot;      /* artifacts/snapshots/<kernel> */
    char *arch;          /* the snapshot's architecture */
    char *digest;        /* sha256:<hex> of the manifest */
    char *orig_co;       /* the original's code object for that arch */
    unsigned block;      /* the captured block size (x*y*z), 0 when unknown */
    char **shapes;       /* the other shapes' snapshots (shape 2, 3 ...), NULL-terminated or NULL */
    char **shape_text;   /* per shape, the captured one first: "grid ... , param 3 (int) = 4096" */
    size_t nshapes;      /* shapes captured in all (1 + the others) */
    char *shapes_joined; /* "- shape 1: ... (timed)\n- shape 2: ..." */
    double written_bytes;
    char *resources, *resources_why;   /* the reference's static figures, as text */
    char *counters_dir, *counters_why; /* the reference's counter pass */
    double flops, bytes, peak_gbps, peak_gflops, roof_ns, floor_ns;
    double shapes_s, counters_s; /* what the other shapes and the counter pass cost */
} pipe_kernel;

/* One build: a scratch tree with the source written in, the program and the code objects. */
typedef struct pipe_build {
    rpl_scratch *scratch;
    char *src;                 /* the source in the tree */
    char *program;             /* the built program */
    char *log;                 /* compiler output, every command */
    rpl_kernel_source *parsed; /* the source as parsed (a reference), or NULL */
} pipe_build;

struct rpl_pipe {
    const rpl_pipe_target *target;
    rpl_pipe_opts opts;
    rpl_git_repo *repo;
    char *relpath;
    char *orig_text;
    size_t orig_len;
    bool dirty;
    char baseline[41];
    char *artifacts;
    char *scratch_parent;
    char *tool;
    char *compiler; /* the default compiler: "hipcc" or "nvcc" (NULL with a build command) */
    pipe_build orig;
    rpl_kernel_source *orig_ks; /* the original parsed with libclang */
    rpl_ks_options ks;
    char *ks_dir;      /* the source's directory, where its build runs */
    char **ks_words;   /* the build command as libclang reads it ({src} {dir} filled in) */
    char gpu_arch[16]; /* this machine's GPU, or "" */
    unsigned wave_size;
    double app_ns; /* the original's critical path, NaN when not profiled */
    char **ranked; /* kernels by 1/(1-f) */
    double *ceilings;
    size_t nranked;
    const char *rank_basis; /* "critical_path", "gpu_time", NULL: nothing ranked */
    pipe_kernel *kernels;
    size_t nkernels;
    rpl_pipe_outcome **outcomes;
    size_t noutcomes;
    char **commits;     /* per outcome: "branch commit" or NULL */
    pipe_build *builds; /* per outcome, kept until close */
    rpl_rng rng;        /* the test programs' fresh seeds */
    double opened_s;
};

/* argv helpers (NULL-terminated arrays of malloc'ed strings). */
void pipe_argv_free(char **argv);
/* The architecture of the program's build: --arch, else the GPU's; NULL when neither. */
const char *pipe_arch(const rpl_pipe *p);
/* 0 when the kernel parsed completely in the original, else RPL_EINPUT naming FILE:LINE. */
int pipe_kernel_parsed(const rpl_pipe *p, const rpl_ks_kernel *k);
int pipe_split_words(char ***out, const char *text);
int pipe_argv_push(char ***argv, size_t *n, const char *word);
/* Copy `argv` replacing {src} {out} {dir} {arch} inside words; `vars` holds 4 values (may be NULL).
 */
int pipe_argv_expand(char ***out, const char *const *argv, const char *const vars[4]);
/* One line: the words joined by blanks, quoted where needed (*out, free()). */
int pipe_argv_text(char **out, const char *const *argv);

/* The last non-empty line of `text` (a static buffer of at most 300 bytes). */
const char *pipe_last_line(const char *text);
int pipe_set(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pipe_progress(const rpl_pipe *p, const char *cand, rpl_pipe_step step, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Run a child with captured output, appending the command and its output to
 * `log` when given.  0 when it ran (see *res); RPL_ENOTFOUND when it cannot
 * be started (the message names it), RPL_ETIMEOUT past the limit.
 */
int pipe_run(rpl_spawn_result *res, const char *const *argv, const char *cwd, int timeout_ms,
             rpl_strbuf *log);

int pipe_add_metric(rpl_pipe_outcome *o, const char *name, double orig, double cand);

/* The kernel's entry, capturing its snapshot and building the original's code object first. */
int pipe_kernel_get(rpl_pipe *p, const char *name, pipe_kernel **out);
void pipe_outcome_free(rpl_pipe_outcome *o);

/*
 * Rank the kernels of the source profiled in `dag` (dag.json) by 1/(1-f)
 * into p->ranked and p->ceilings (appended: empty them first), f their
 * critical-path share, or their GPU-time share when none is on the critical
 * path (p->rank_basis says which; a warning says so), and set p->app_ns.
 */
int pipe_rank(rpl_pipe *p, const cJSON *dag);

/* Builds (build.c). */
int pipe_build_make(rpl_pipe *p, pipe_build *b, const char *text, size_t len, bool *failed);
/* The code object of k's architecture; a header goes through an instantiating unit. */
int pipe_build_codeobj(rpl_pipe *p, pipe_build *b, const pipe_kernel *k, const char *co_path,
                       bool *failed);
void pipe_build_release(pipe_build *b);

/* Children of rocm-perf (tool.c). */
int pipe_capture(rpl_pipe *p, pipe_kernel *k);
/* How a replay that gave no JSON ended; the evidence is one line saying it. */
typedef enum pipe_replay_end {
    PIPE_REPLAY_RAN = 0, /* it ran: the JSON holds its check and times */
    PIPE_REPLAY_REFUSED, /* exit 2: it refused the code object (symbol, arguments) */
    PIPE_REPLAY_CRASHED, /* killed by a signal */
    PIPE_REPLAY_TIMEOUT, /* ran past its time limit (a hang?) */
    PIPE_REPLAY_FAILED   /* another exit status */
} pipe_replay_end;

typedef struct pipe_replay_failure {
    pipe_replay_end end;
    char *evidence; /* NULL when it ran */
} pipe_replay_failure;

/* A candidate's replay: 0 with *out (it ran) or with *failure set (the candidate's fault);
   else the run's error (the environment: no replay tool, no GPU). */
int pipe_replay(rpl_pipe *p, const pipe_kernel *k, const char *co, bool check, unsigned iterations,
                cJSON **out, pipe_replay_failure *failure);
int pipe_profile_app(rpl_pipe *p, const char *program, const char *dir, cJSON **dag);
/* The counter pass: `profile` over a replay of k's snapshot with `co`, into `dir`. 0 with *why
   set when it could not be made (the reason, for the facts). */
int pipe_counter_pass(rpl_pipe *p, const pipe_kernel *k, const char *co, const char *dir,
                      char **why);
/* The extended regex capture's --kernel gets for a kernel's name (a template's bare name
   matches its instantiations). */
int pipe_kernel_regex(char **out, const char *name);
/* A capture of the dispatch-th matching dispatch into `dir`: 0, or RPL_ENOTFOUND (no error set)
   when the program makes fewer dispatches of the kernel. */
int pipe_capture_dispatch(rpl_pipe *p, const pipe_kernel *k, unsigned dispatch, const char *dir);

/* Facts (facts.c): the other shapes, the written bytes, the static figures and the counter pass
   of the reference.  A fact that cannot be had is noted with its reason, never an error. */
int pipe_shapes_capture(rpl_pipe *p, pipe_kernel *k);

/*
 * The dispatches (indices among the kernel's, 0 the snapshot's) to capture
 * for other shapes (probes.c): of the dispatches in `trace` whose mangled or
 * display name matches `regex`, in the order they ran, the first of each
 * launch geometry not seen before (grid, block, dynamic shared memory; at
 * most PIPE_SHAPE_PROBES_MAX), then 1-4, 8, 16 and 32 where not listed.
 * `trace` NULL: those fixed ones only.  *out: free().
 */
#define PIPE_SHAPE_PROBES_MAX 32
struct rpl_trace;
int pipe_shape_probes(const struct rpl_trace *trace, const char *regex, unsigned **out, size_t *n);
/* The same over the original's profile (artifacts/profile-original), the fixed ones without. */
int pipe_shape_probes_of_profile(const rpl_pipe *p, const pipe_kernel *k, unsigned **out,
                                 size_t *n);
int pipe_kernel_measure(rpl_pipe *p, pipe_kernel *k);
/* The floor, roofline time and figures of a counter pass in `dir` (roofline.json). */
int pipe_counter_figures(const pipe_kernel *k, const char *dir, double *flops, double *bytes,
                         double *peak_gbps, double *peak_gflops, char **why);
void pipe_kernel_facts_release(pipe_kernel *k);
/* The static figures of `k` in the code object at `path` (*one points into *all). */
int pipe_statics(rpl_static_kernel **all, size_t *n, const rpl_static_kernel **one,
                 const char *path, const pipe_kernel *k);

#endif
