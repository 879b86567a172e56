/*
 * The candidate pipeline of the optimizer (docs/USER_GUIDE.md section 12):
 * one path from a candidate kernel source to a decision, shared by
 * `optimize`, `llm-optimize` and `autotune`.
 *
 *     candidate source -> build -> static checks -> correctness -> performance -> decision
 *
 * A context is opened once per target: the repository is opened, the
 * original is exported into a scratch tree (never the user's checkout),
 * built, inspected and run once under the profiler (the whole application's
 * critical path and the kernels ranked by 1/(1-f), rpl/dag.h).  The first
 * candidate for a kernel captures that kernel's snapshot from the original
 * (`rocm-perf capture`), once.  Each candidate then goes through:
 *
 *  1. build     in a scratch tree of its own: the program (test command) and
 *               the device code object for the snapshot's architecture;
 *  2. signature the code object holds the original's mangled kernel symbol;
 *  3. static    VGPR/SGPR/LDS/scratch/spills must not grow, occupancy must
 *               not drop (the deterministic gates, rpl_gate_compare_static);
 *  4. replay    `rocm-perf replay full-vm SNAP --code-object C --check
 *               --check-runs 2 --poison --json` in a child with a time limit:
 *               every region equal to the original's post-image within the
 *               dtype tolerance (a mismatch in a region the original does not
 *               write is "writes outside outputs"), both runs identical;
 *  5. test      the program's own check, run with seeds the candidate never
 *               saw, twice per seed with equal output;
 *  6. measure   original and candidate replayed alternately (ABAB...) for
 *               opts.rounds rounds; bootstrap CI of the ratio of medians
 *               (rpl_gate_compare_samples); accepted only when the bound
 *               beats opts.min_gain;
 *  7. app       the original program and the one with the candidate, each
 *               profiled opts.app_rounds times interleaved (ABAB...): the
 *               bootstrap CI of the ratio of their critical paths' medians
 *               (candidate/original); rejected as slower only when its lower
 *               bound exceeds 1 + opts.app_tolerance (confirmed slower; one
 *               profile of each is too noisy to judge an app by).
 *
 * The first failing step decides; later steps do not run.  Child processes
 * (compiler, rocm-perf capture/replay/profile, the program) are spawned with
 * an argv array and a time limit (rpl/spawn.h); everything temporary is
 * registered with rpl/cleanup.h, so an interrupt leaves nothing behind.
 * Nothing here writes the user's HEAD, index or working tree, and no branch
 * is made here: committing accepted candidates is the caller's business
 * (rpl/optgit.h, rpl_pipe_commit_message).
 */
#ifndef RPL_PIPELINE_H
#define RPL_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RPL_PIPE_LOG_SCHEMA_VERSION       "1.0"
#define RPL_PIPE_DEFAULT_MIN_GAIN         0.02 /* 2 %: the seed's threshold */
#define RPL_PIPE_DEFAULT_ROUNDS           10   /* ABAB rounds */
#define RPL_PIPE_DEFAULT_ITERATIONS       20   /* timed launches per replay in a round */
#define RPL_PIPE_DEFAULT_SEEDS            2    /* fresh seeds for the program's own check */
#define RPL_PIPE_DEFAULT_APP_TOLERANCE    0.03 /* whole-app slowdown that must be confirmed */
#define RPL_PIPE_DEFAULT_APP_ROUNDS       5    /* whole-app profiles of each, ABAB */
#define RPL_PIPE_DEFAULT_BUILD_TIMEOUT_MS 300000
#define RPL_PIPE_DEFAULT_RUN_TIMEOUT_MS   120000
#define RPL_PIPE_DEFAULT_SHAPES           3 /* distinct dispatches replay-checked */
#define RPL_PIPE_COUNTER_LAUNCHES         5 /* launches of the counter pass's replay */
/* A candidate measured below (1 - margin) x the physical floor is `impossible`. */
#define RPL_PIPE_FLOOR_MARGIN 0.10

/* ---- target ---------------------------------------------------------------- */

/*
 * What is optimised: a kernel source file inside a git repository and the
 * program that exercises it.  Command words may hold the placeholders
 * {src} (the source file in the scratch tree), {out} (the program to build),
 * {dir} (the scratch tree); the program's first word {out} (or the word the
 * seed form named) is replaced by the built program.
 */
typedef struct rpl_pipe_target {
    char *name;           /* the test's name, or the source file's stem */
    char *source;         /* the kernel source, absolute */
    char *kernel;         /* the kernel to optimise, or NULL: ranked from the profile */
    char **build_argv;    /* builds {out} from {src}; NULL-terminated, NULL: the default compiler */
    char **test_argv;     /* the program and its arguments (the same for original and candidate) */
    char *seed_flag;      /* the option that sets the program's input seed ("--seed"), or NULL:
                             the program's own check does not run on fresh seeds */
    char *baseline;       /* stored baseline file, or NULL (reported, not required) */
    char *build_dir;      /* where scratch trees and default artifacts go, or NULL */
    char **cflags;        /* extra words for the default compiler (-I DIR, -D X), NULL-terminated,
                             or NULL */
    char **codeobj_argv;  /* builds the device code object {out} for {arch} from {src}; NULL:
                             the default compiler's (hipcc --genco, nvcc -cubin) */
    char **compile_words; /* the source's compile command for libclang (compile_commands.json),
                             or NULL: build_argv's, else cflags */
    char *compile_dir;    /* where compile_words run, or NULL: the source's directory */
} rpl_pipe_target;

/*
 * The seed form `SOURCE "APP ARGS"`: SOURCE is a standalone program (kernels
 * and main) built with hipcc or nvcc -O3; APP ARGS is split on blanks (single
 * and double quotes group words, no other shell syntax) and its first word
 * names the program built from SOURCE.  `build` ("nvcc -O3 -o {out} {src}
 * main.cu -lcublas", NULL: the default compiler) builds the program
 * instead, `run` ("{out} --size 4096", NULL: APP ARGS) runs it.  Both are
 * split as autotune splits its templates (quotes, no shell) and checked by
 * rpl_pipe_command_check: the build needs {src} and {out}, the run {out}.
 * RPL_EINPUT for an empty or badly quoted command or a missing or unknown
 * placeholder,
 * RPL_ENOTFOUND for a missing source.
 */
int rpl_pipe_target_from_commands(rpl_pipe_target **out, const char *source, const char *app_args,
                                  const char *build, const char *run);

/*
 * A test registered with rocm_perf_add_kernel_test: <build_dir>/rocm-perf/<name>/target.json
 * (docs/schemas/target.schema.json).  RPL_ENOTFOUND when the file is not there (the
 * message names it), RPL_EINPUT when it does not follow the schema.
 */
int rpl_pipe_target_from_test(rpl_pipe_target **out, const char *build_dir, const char *name);

/*
 * The target.json text itself (LEN bytes, no NUL needed); BUILD_DIR becomes the
 * target's build_dir.  RPL_EINPUT (and *OUT NULL) when it is not JSON or does not
 * follow the schema, RPL_ENOTFOUND when the kernel source it names is not there.
 */
int rpl_pipe_target_parse(rpl_pipe_target **out, const char *text, size_t len,
                          const char *build_dir);

void rpl_pipe_target_free(rpl_pipe_target *t);

/*
 * Check a command's words as autotune checks its templates: every {NAME}
 * is one of {src} {out} {dir} {arch} ({{ and }} are literal braces), and
 * the placeholders `needs` asks for are there.  `field` names the command
 * in the message ("'build_command'", "--build").  0, or RPL_EINPUT.
 */
#define RPL_PIPE_NEEDS_SRC (1u << 0)
#define RPL_PIPE_NEEDS_OUT (1u << 1)
int rpl_pipe_command_check(const char *const *argv, const char *field, unsigned needs);
/* A command given as text (--build "CMD"): split as autotune splits its templates, then checked. */
int rpl_pipe_command_words(char ***out, const char *text, const char *option, unsigned needs);

/* ---- candidate ------------------------------------------------------------- */

/* Who wrote a candidate. */
typedef enum rpl_pipe_origin {
    RPL_PIPE_ORIGIN_RULE = 0, /* a rule of `optimize` (unroll) */
    RPL_PIPE_ORIGIN_FILE,     /* --candidate FILE: by hand or another tool */
    RPL_PIPE_ORIGIN_LLM,      /* llm-optimize */
    RPL_PIPE_ORIGIN_AUTOTUNE
} rpl_pipe_origin;

typedef struct rpl_pipe_candidate {
    const char *kernel; /* the kernel it changes (a name rpl_kernel_source_find accepts) */
    const char *text;   /* the whole new source file */
    size_t len;
    const char *strategy; /* one line: "unroll x4 (loop 0)", "hand-written" */
    rpl_pipe_origin origin;
    const char *model;  /* LLM origin: the model, else NULL */
    unsigned iteration; /* the caller's number for it (LLM turn), 0 when none */
    /* `text` as parsed with rpl_pipe_parse_options (or spliced or edited from the original's
       parse), which the signature step and a rebase then use; NULL: the pipeline parses it. */
    struct rpl_kernel_source *parsed;
} rpl_pipe_candidate;

/* ---- options --------------------------------------------------------------- */

typedef enum rpl_pipe_step {
    RPL_PIPE_STEP_BUILD = 0,
    RPL_PIPE_STEP_SIGNATURE,
    RPL_PIPE_STEP_STATIC,
    RPL_PIPE_STEP_REPLAY,
    RPL_PIPE_STEP_TEST,
    RPL_PIPE_STEP_MEASURE,
    RPL_PIPE_STEP_APP,
    RPL_PIPE_STEPS
} rpl_pipe_step;

/* "build", "signature", "static", "replay", "test", "measure", "app". */
const char *rpl_pipe_step_name(rpl_pipe_step step);

/* Progress: `what` is one line ("capturing the snapshot of saxpy", "round 3/10"). */
typedef void (*rpl_pipe_progress_fn)(void *ctx, const char *candidate, rpl_pipe_step step,
                                     const char *what);

typedef struct rpl_pipe_opts {
    double min_gain;      /* the speedup's lower bound must exceed 1 + min_gain */
    unsigned rounds;      /* ABAB rounds */
    unsigned iterations;  /* timed launches per replay in a round */
    unsigned seeds;       /* fresh seeds for the program's own check (0: skip it) */
    double app_tolerance; /* rejected when the CI lower bound of the whole-app critical path
                             ratio candidate/original exceeds 1 + app_tolerance */
    unsigned app_rounds;  /* whole-app profiles of original and candidate, interleaved */
    bool skip_app;        /* no whole-app profile (nothing to profile with) */
    bool have_tolerance;  /* replay comparison: override the per-dtype tolerances */
    double rtol, atol;
    double confidence;     /* one-sided, 0.95 */
    unsigned long seed;    /* bootstrap and fresh-seed generator seed (0: from the clock) */
    int build_timeout_ms;  /* each build */
    int run_timeout_ms;    /* each capture, replay, profile, program run */
    bool allow_dirty;      /* build a modified source as it is in the working tree */
    const char *artifacts; /* the artifacts directory (created); NULL:
                              <build_dir or cwd>/rocm-perf-optimize/<target>-<UTC> */
    const char *tool;      /* the rocm-perf run for capture/replay/profile children;
                              NULL: this program (/proc/self/exe) */
    const char *arch;      /* the device code object's architecture; NULL: the snapshot's */
    unsigned shapes;       /* distinct dispatches of the kernel captured and replay-checked
                              (scalar arguments or geometry differ); 0: the default, 1: only the
                              first */
    const char *const *verify_runs; /* more argument lists for the program's own check
                                       (--verify-run "ARGS", each split as the seed form's),
                                       NULL-terminated, or NULL */
    bool no_counters;               /* no counter pass (no roofline facts, no physical floor) */
    rpl_pipe_progress_fn progress;
    void *progress_ctx;
} rpl_pipe_opts;

void rpl_pipe_opts_init(rpl_pipe_opts *o);

/* ---- outcome --------------------------------------------------------------- */

/* The decision; the names are the JUnit failure types. */
typedef enum rpl_pipe_decision {
    RPL_PIPE_ACCEPTED = 0,
    RPL_PIPE_REJECT_BUILD,            /* "build": the compiler failed or timed out */
    RPL_PIPE_REJECT_SIGNATURE,        /* "signature": other mangled symbol or parameters */
    RPL_PIPE_REJECT_STATIC,           /* "static": spills, occupancy drop, more LDS/scratch/regs */
    RPL_PIPE_REJECT_WRONG_RESULT,     /* "wrong-result": replay mismatch, writes outside the
                                         outputs, a failed or crashed program check */
    RPL_PIPE_REJECT_NONDETERMINISTIC, /* "nondeterministic": two runs differ */
    RPL_PIPE_REJECT_SLOWER,           /* "slower": confirmed more than min_gain slower (the
                                         speedup's whole CI below 1 / (1 + min_gain)), or the
                                         whole application's CI above 1 + app_tolerance */
    RPL_PIPE_REJECT_NOT_SIGNIFICANT,  /* "not-significant": neither proven min_gain faster
                                         nor confirmed min_gain slower */
    RPL_PIPE_REJECT_PATCH,            /* "patch": llm-optimize rejected the model's reply itself
                                         (no kernel in it, edits outside the kernel) */
    RPL_PIPE_REJECT_IMPOSSIBLE,       /* "impossible": measured faster than the physical floor
                                         of the work the dispatch must do (skipped work the
                                         checks did not see, or a fooled timer) */
    RPL_PIPE_DECISIONS
} rpl_pipe_decision;

/* "accepted", "build", "signature", "static", "wrong-result", ... */
const char *rpl_pipe_decision_name(rpl_pipe_decision d);

/*
 * The measure step's verdict on the speedup's confidence interval [lo, hi]
 * (original/candidate time): RPL_PIPE_ACCEPTED when lo > 1 + min_gain,
 * RPL_PIPE_REJECT_SLOWER when hi < 1 / (1 + min_gain) (confirmed more than
 * min_gain slower), else RPL_PIPE_REJECT_NOT_SIGNIFICANT: a difference within
 * min_gain of 1 either way, or one the interval cannot tell.
 */
rpl_pipe_decision rpl_pipe_speedup_decision(double lo, double hi, double min_gain);

/*
 * Decimals to print a speedup and its interval with: 3, or more (up to
 * RPL_PIPE_SPEEDUP_MAX_DIGITS) while the bounds print as one value or a
 * number that is not 1 prints as 1.000 (0.99980x, CI 0.99965-0.99998).
 */
#define RPL_PIPE_SPEEDUP_MAX_DIGITS 6
int rpl_pipe_speedup_digits(double speedup, double lo, double hi);

/* One step: whether it ran and passed, how long it took, its evidence. */
typedef struct rpl_pipe_step_result {
    bool ran, passed;
    double seconds;
    char *evidence; /* one line with the numbers ("3/3 regions equal (f32 rtol 1e-05 ...)"),
                       NULL when it did not run */
} rpl_pipe_step_result;

/* A number of a step, for the log, the report and the commit body. */
typedef struct rpl_pipe_metric {
    char *name; /* "vgpr", "median_ns", "speedup", "critical_path_ns" ... */
    double original, candidate;
} rpl_pipe_metric;

typedef struct rpl_pipe_outcome {
    char *id;     /* "c01-unroll-x4": unique in the run, names its artifacts */
    char *kernel; /* the kernel's display name */
    char *strategy;
    rpl_pipe_origin origin;
    char *model;        /* the candidate's model, or NULL */
    unsigned iteration; /* the candidate's iteration, 0 when none */
    rpl_pipe_decision decision;
    char *message; /* one line: why (the deciding step's evidence) */
    rpl_pipe_step_result steps[RPL_PIPE_STEPS];
    rpl_pipe_metric *metrics;
    size_t nmetrics;

    /* measure (NaN when not measured) */
    double speedup;                /* median original / median candidate */
    double speedup_lo, speedup_hi; /* its CI at opts.confidence (two one-sided bounds) */
    double time_change_pct;        /* candidate vs original: -12.3 is 12.3 % faster */
    double ci_half_pct;            /* half-width of the CI of time_change_pct */
    double median_orig_ns, median_cand_ns;
    double app_orig_ns, app_cand_ns; /* whole-app critical path, medians of the app step's
                                        rounds; NaN without the app step */
    double app_ratio, app_ratio_lo, app_ratio_hi; /* app_cand_ns / app_orig_ns and its CI */
    double floor_ns;   /* the physical floor the candidate was held to; NaN when unknown */
    double headroom;   /* the reference's median / its roofline time: the most speedup the
                          roofline allowed; NaN when unknown */
    char *correctness; /* "replay 3/3 regions equal (f32 rtol 1e-05 atol 1e-06), 2 runs
                          identical; test 2/2 fresh seeds" */

    char *source_path;    /* artifacts: the candidate's source */
    char *build_log_path; /* artifacts: its build log */
    char *code_object;    /* the built code object (in the scratch tree until close), or NULL */
    double seconds;       /* the whole candidate */
} rpl_pipe_outcome;

/* ---- context --------------------------------------------------------------- */

typedef struct rpl_pipe rpl_pipe;

/*
 * Open a target: repository (RPL_ENOTFOUND outside one), the source's state
 * (a modified or untracked source is RPL_EINPUT unless opts->allow_dirty),
 * the artifacts directory, the original built in a scratch tree and
 * inspected, and (unless opts->skip_app) profiled once.  A failure to build
 * the original is RPL_EINPUT with the compiler's last line; a missing
 * compiler or profiler RPL_EENV.
 */
int rpl_pipe_open(rpl_pipe **out, const rpl_pipe_target *target, const rpl_pipe_opts *opts);

/*
 * The kernels of the original profile ranked by critical-path impact
 * 1/(1-f), f the kernel's share of the critical path (or of GPU time, see
 * rpl_pipe_rank_basis), highest first; only kernels defined in the target's
 * source.  Empty when the app was not profiled.  Names are display
 * names; *ceilings (may be NULL) gets 1/(1-f).
 */
size_t rpl_pipe_ranked(const rpl_pipe *p, const char *const **names, const double **ceilings);

/*
 * What the ranking's f is: "critical_path" (the kernels' share of the
 * critical path), "gpu_time" (no kernel of the source is on the critical
 * path, copies or host work hold it all: their share of the GPU's busy time,
 * and a warning said so), or NULL when nothing is ranked.
 */
const char *rpl_pipe_rank_basis(const rpl_pipe *p);

/* The original source text (HEAD's, or the working tree's under allow_dirty) and its size. */
const char *rpl_pipe_original_source(const rpl_pipe *p, size_t *len);

/* The original parsed with libclang (kernels, loops, signatures), as candidates are checked. */
const struct rpl_kernel_source *rpl_pipe_original_parsed(const rpl_pipe *p);

/* How the pipeline parses the source (libclang), for a caller's parse of a candidate. */
const struct rpl_ks_options *rpl_pipe_parse_options(const rpl_pipe *p);

/* The source's path within the repository ('/'-separated). */
const char *rpl_pipe_source_relpath(const rpl_pipe *p);

/* The commit the original was exported from. */
const char *rpl_pipe_baseline_commit(const rpl_pipe *p);

/* "sha256:<hex>" of the snapshot manifest of `kernel`, NULL before it was captured. */
const char *rpl_pipe_snapshot_digest(const rpl_pipe *p, const char *kernel);

/* The artifacts directory. */
const char *rpl_pipe_artifacts(const rpl_pipe *p);

/* The wavefront size of the original's code object (32 or 64; 0 before rpl_pipe_prepare). */
unsigned rpl_pipe_wave_size(const rpl_pipe *p);

/*
 * What the pipeline measured of a kernel's reference (the original, or the
 * last accepted candidate) when it was prepared: text fields are NULL when
 * not known, with the reason in the matching *_why.
 */
typedef struct rpl_pipe_facts {
    const char *arch;      /* the snapshot's architecture (sm_90, gfx942) */
    const char *resources; /* registers, LDS, scratch, spills, occupancy (code object) */
    const char *resources_why;
    const char *counters_dir; /* the counter pass over the captured dispatch's replay:
                                 an `analyze --out` folder (roofline.json, analysis.json) */
    const char *counters_why;
    const char *shapes; /* one line per captured shape ("1: grid ... n=4096") */
    size_t nshapes;
    double flops, bytes;  /* per dispatch, from the counter pass; NaN when unknown */
    double written_bytes; /* bytes the captured dispatch changed (snapshot pre/post) */
    double peak_gbps, peak_gflops;
    double roof_ns;  /* flops and bytes at the peaks: the roofline's time for the reference */
    double floor_ns; /* written bytes and flops at the peaks: no correct candidate is faster */
} rpl_pipe_facts;

/* The facts of a prepared kernel (rpl_pipe_prepare first); RPL_ENOTFOUND when not prepared. */
int rpl_pipe_kernel_facts(const rpl_pipe *p, const char *kernel, rpl_pipe_facts *out);

/*
 * Capture `kernel`'s snapshot from the original and build the original's
 * code object for its architecture, unless done already (rpl_pipe_run does
 * this on a kernel's first candidate).  RPL_ENOTFOUND for a kernel the
 * source does not define, RPL_EINPUT when the original cannot be captured.
 */
int rpl_pipe_prepare(rpl_pipe *p, const char *kernel);

/*
 * Put one candidate through the pipeline.  A rejection is no error: 0 and
 * (*out)->decision.  Errors are what stops the run (the environment, an
 * interrupt: RPL_ERROR "interrupted by SIGINT", a snapshot that cannot be
 * captured from the original: RPL_EINPUT), *out NULL.  The outcome
 * belongs to the context (valid until rpl_pipe_close) and goes into its
 * reports.
 */
int rpl_pipe_run(rpl_pipe *p, const rpl_pipe_candidate *c, rpl_pipe_outcome **out);

/*
 * Record a candidate its caller rejected before the pipeline (llm-optimize:
 * a reply that breaks the output contract, a changed signature found in the
 * source) with `decision` and the one-line `message`, so that it appears in
 * the reports like any other.  *out as for rpl_pipe_run.
 */
int rpl_pipe_record(rpl_pipe *p, const rpl_pipe_candidate *c, rpl_pipe_decision decision,
                    const char *message, rpl_pipe_outcome **out);

/*
 * Make an accepted outcome the reference of the next candidates (llm-optimize
 * goes on from its best): its source becomes the original text, its build
 * and code objects what candidates are measured against, and its
 * whole-application profile the one gated against and ranked
 * (rpl_pipe_ranked).  The snapshots, and with them the correctness
 * reference, stay those captured from the original.
 */
int rpl_pipe_rebase(rpl_pipe *p, const rpl_pipe_outcome *o);

/*
 * The commit message of an accepted outcome (rpl_commit_msg_format): subject
 * with the time change, metrics table, trailers (speedup, CI, correctness,
 * baseline, snapshot digest, tool, model and iteration when known).
 */
int rpl_pipe_commit_message(const rpl_pipe *p, const rpl_pipe_outcome *o, char **out);

/*
 * Note what became of an accepted outcome (its commit and branch, or "not
 * committed: dry run"), for the reports.
 */
int rpl_pipe_note_commit(rpl_pipe *p, const rpl_pipe_outcome *o, const char *branch,
                         const char *commit);

/*
 * Write the reports into the artifacts directory, each whole or not at all
 * (temp file, rename): junit.xml (one testcase per candidate, the failure
 * type the decision's name), summary.md, optimize-log.json
 * (docs/schemas/optimize-log.schema.json).  May be called after every
 * candidate.
 */
int rpl_pipe_write_reports(rpl_pipe *p);

/* Remove the scratch trees and free; the artifacts stay.  NULL is fine. */
void rpl_pipe_close(rpl_pipe *p);

#ifdef __cplusplus
}
#endif
#endif
