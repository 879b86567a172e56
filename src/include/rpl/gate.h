/*
 * The gate: compare a candidate with a stored baseline and decide.
 *
 * Runtime rule (ARCHITECTURE.md section 5, gating.md section 11): the log
 * ratio L = ln(median candidate / median baseline) with a one-sided
 * confidence bound at `confidence`.
 *  - Two-sample mode (the baseline's history has fewer than
 *    RPL_GATE_MIN_HISTORY medians): percentile bootstrap of L, both samples
 *    resampled with replacement, B times, GSL gsl_rng_mt19937 seeded with
 *    `seed`; LB and UB are the (1-confidence) and confidence quantiles.
 *  - Stored-baseline mode (history of K >= RPL_GATE_MIN_HISTORY medians):
 *    L = ln median(candidate) - mu_B, mu_B the median of the K ln-medians;
 *    sigma_run = max(1.4826 MAD(ln-medians), RPL_GATE_SIGMA_FLOOR);
 *    s_tot^2 = se_boot^2 + sigma_run^2 (1 + 1/K), se_boot the bootstrap
 *    standard deviation of ln median(candidate);
 *    LB, UB = L -/+ t_{K-1, confidence} s_tot.
 * The change is `slower` when LB > ln(1+delta), `faster` when UB < ln(1-delta),
 * `same` when [LB, UB] lies within [ln(1-delta), ln(1+delta)], and
 * `undecided` when the interval straddles either threshold (nvbench's
 * "ambiguous").  Verdicts: slower FAIL, faster IMPROVED, same PASS,
 * undecided the caller's choice (`undecided` option, WARN by default).
 */
#ifndef RPL_GATE_H
#define RPL_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "rpl/baseline.h"
#include "rpl/gpu_state.h"
#include "rpl/strbuf.h"

#define RPL_GATE_RESULT_SCHEMA_VERSION "1.0"
#define RPL_GATE_DEFAULT_SEED          20260101u
#define RPL_GATE_DEFAULT_BOOTSTRAP     2000u
#define RPL_GATE_DEFAULT_CONFIDENCE    0.95
#define RPL_GATE_DEFAULT_TOLERANCE     0.03
#define RPL_GATE_MIN_HISTORY           3
#define RPL_GATE_SIGMA_FLOOR           0.005
#define RPL_GATE_GPU_SAMPLE_MS         50 /* GPU state polling period while a program runs */

/* Ordered by severity: the verdict of a result is its worst check's. */
typedef enum rpl_verdict {
    RPL_VERDICT_PASS = 0,
    RPL_VERDICT_IMPROVED = 1,
    RPL_VERDICT_WARN = 2,
    RPL_VERDICT_FAIL = 3
} rpl_verdict;

/* "pass", "improved", "warn", "fail". */
const char *rpl_verdict_name(rpl_verdict v);
/* The inverse; -1 for an unknown name. */
int rpl_verdict_parse(const char *name);

/* What the runtime interval says about the change. */
typedef enum rpl_change {
    RPL_CHANGE_SAME = 0,
    RPL_CHANGE_FASTER,
    RPL_CHANGE_SLOWER,
    RPL_CHANGE_UNDECIDED
} rpl_change;

/* "same", "faster", "slower", "undecided". */
const char *rpl_change_name(rpl_change c);
/* The inverse; -1 for an unknown name. */
int rpl_change_parse(const char *name);

typedef struct rpl_gate_stat_opts {
    double delta;          /* minimum material change, 0.03 for 3 % */
    double confidence;     /* one-sided, 0.95 */
    unsigned bootstrap;    /* B */
    unsigned long seed;    /* gsl_rng_mt19937 seed */
    rpl_verdict undecided; /* verdict of an undecided change: PASS, WARN (default) or FAIL */
} rpl_gate_stat_opts;

void rpl_gate_stat_opts_init(rpl_gate_stat_opts *o);

typedef struct rpl_runtime_cmp {
    double median_base, median_cand; /* ns; median_base is exp(mu_B) in stored mode */
    double log_ratio;                /* L */
    double lower, upper;             /* one-sided bounds on L */
    double se_boot;                  /* bootstrap standard deviation */
    double sigma_run;                /* stored mode: run-to-run spread; else 0 */
    size_t history;                  /* K used (0 in two-sample mode) */
    double p_value; /* P(no regression beyond delta): bootstrap tail fraction, or the
                       t tail in stored mode; Holm works on it */
    rpl_change change;
    rpl_verdict verdict;
} rpl_runtime_cmp;

/*
 * Compare samples.  `history` holds the baseline's accepted medians (ns),
 * NULL/0 for none.  Fails with RPL_EUSAGE for empty samples or bad options.
 */
int rpl_gate_compare_samples(rpl_runtime_cmp *out, const double *base, size_t nbase,
                             const double *cand, size_t ncand, const double *history,
                             size_t nhistory, const rpl_gate_stat_opts *opts);

/* One comparison of one metric of one kernel. */
typedef struct rpl_gate_check {
    char *kernel;
    char *family; /* "runtime", "registers", "lds", "scratch", "occupancy", "counters",
                     "bottleneck" */
    char *metric; /* "median_ns", "vgpr", "lds_bytes", a counter name ... */
    bool has_base, has_cand;
    double base, cand;
    char *base_text, *cand_text; /* for text metrics (limiter, bottleneck), or NULL */
    double change;               /* cand / base - 1 (0 when not defined) */
    bool has_runtime;
    rpl_runtime_cmp rt;
    rpl_verdict verdict;
    char *message; /* one line with the numbers */
} rpl_gate_check;

typedef struct rpl_gate_result {
    char *test, *arch, *device;
    char *mode;  /* "runtime" or "static" */
    char *input; /* "trace", "app" or "static" */
    char *baseline_path;
    bool baseline_missing;
    bool skipped;         /* nothing checked, and the caller allowed it: JUnit <skipped> */
    char *create_command; /* the command that creates the missing baseline */
    rpl_gate_stat_opts stat;
    unsigned warmup, repetitions;
    rpl_gate_check *checks;
    size_t nchecks, capchecks;
    rpl_verdict verdict;
    unsigned retries;           /* measurements added because a runtime change was undecided */
    rpl_gpu_state gpu;          /* while the candidate ran (invalid: not known) */
    rpl_gpu_state baseline_gpu; /* the baseline's latest recorded state */
    bool confirmed;             /* a confirmation run was made */
    char *confirmation;         /* what happened about confirmation (text) */
    double elapsed_s;
    char **attachments; /* report paths for JUnit [[ATTACHMENT|...]] lines */
    size_t nattachments;
    char **traces; /* the rocpd databases measured (--trace input), for the HTML report */
    size_t ntraces;
} rpl_gate_result;

int rpl_gate_result_new(rpl_gate_result **out, const char *test, const char *arch, const char *mode,
                        const char *input);
void rpl_gate_result_free(rpl_gate_result *r);
/* Set a string field (copying). */
int rpl_gate_result_set(char **field, const char *value);
int rpl_gate_result_add_attachment(rpl_gate_result *r, const char *path);
int rpl_gate_result_add_trace(rpl_gate_result *r, const char *path);
/* Append a check (message printf-formatted; the worst verdict rises); NULL when out of memory. */
rpl_gate_check *rpl_gate_result_add_check(rpl_gate_result *r, const char *kernel,
                                          const char *family, const char *metric, rpl_verdict v,
                                          const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/*
 * What the baseline's history says about the runtime checks: a regression
 * (a slower or undecided change) whose level began at a change point of
 * the history with this run appended gets "began at entry i (commit ...)"
 * in its message; a slow drift of the history and this run (rpl/trend.h)
 * is a WARN check of family "trend".  Histories shorter than two segments
 * are not looked at.
 */
int rpl_gate_trend_checks(rpl_gate_result *r, const rpl_baseline *b, const rpl_runtime_kernel *cand,
                          size_t ncand);

/* Drop every check (before a confirmation run replaces them). */
void rpl_gate_result_clear_checks(rpl_gate_result *r);

/*
 * Deterministic gates on the static sections: registers, LDS, scratch,
 * spills must not grow (exact counts), occupancy must not drop; kernels
 * missing on either side are a FAIL.  Appends checks and updates r->verdict.
 */
int rpl_gate_compare_static(rpl_gate_result *r, const rpl_static_kernel *base, size_t nbase,
                            const rpl_static_kernel *cand, size_t ncand);

/*
 * Runtime gates: the statistical rule on each baseline kernel's samples,
 * counters per dispatch (growth beyond delta is a FAIL), bottleneck class
 * change (WARN).  A baseline kernel missing from the candidate is a FAIL;
 * extra candidate kernels are ignored.
 */
int rpl_gate_compare_runtime(rpl_gate_result *r, const rpl_runtime_kernel *base, size_t nbase,
                             const rpl_runtime_kernel *cand, size_t ncand);

/*
 * Nothing was compared (`why` says why, e.g. an empty kernel list): one
 * check, a FAIL, or with `skip` a PASS and the result marked skipped.  A
 * gate that checks nothing never passes by accident.
 */
int rpl_gate_result_nothing_checked(rpl_gate_result *r, const char *why, bool skip);

/* A missing baseline: one FAIL check carrying the create command. */
int rpl_gate_result_missing(rpl_gate_result *r, const char *path, const char *command);

/* Reports. */
int rpl_gate_result_json(cJSON **out, const rpl_gate_result *r);
/* Parse a result document (suite mode); RPL_EINPUT when it is not one. */
int rpl_gate_result_from_json(rpl_gate_result **out, const cJSON *doc, const char *path);
int rpl_gate_junit_write(const char *path, const rpl_gate_result *const *results, size_t n);
int rpl_gate_markdown(rpl_strbuf *out, const rpl_gate_result *r);
/* Human summary on the terminal. */
int rpl_gate_text(rpl_strbuf *out, const rpl_gate_result *r);

/*
 * Suite report: read every gate result JSON below `dir` (recursively),
 * apply Holm at family-wise level `alpha` to the runtime checks' p-values,
 * and write a summary (text to `out`; markdown/JUnit when paths are given).
 * *failed is set when any test still fails after Holm (statistical checks)
 * or fails a deterministic check.
 */
typedef struct rpl_suite_opts {
    const char *dir;
    double alpha; /* family-wise false-alarm rate, 0.05 */
    const char *markdown;
    const char *junit;
    const char *json;         /* the suite summary, docs/schemas/suite.schema.json */
    const char *html;         /* the HTML report */
    const char *baseline_dir; /* HTML: the baselines' histories; NULL: each result's baseline */
} rpl_suite_opts;

int rpl_gate_suite_report(rpl_strbuf *out, bool *failed, const rpl_suite_opts *opts);

/*
 * The geometric mean of the runtime ratios (candidate / baseline median)
 * over every test and kernel, and a two-sided percentile bootstrap interval
 * at RPL_SUITE_GEOMEAN_CONFIDENCE that resamples tests (B
 * RPL_GATE_DEFAULT_BOOTSTRAP, gsl_rng_mt19937 seeded RPL_GATE_DEFAULT_SEED).
 * kernels == 0 when no result has a runtime check.
 */
#define RPL_SUITE_GEOMEAN_CONFIDENCE 0.95
typedef struct rpl_suite_geomean {
    size_t tests, kernels;
    double ratio, ci_low, ci_high;
    double confidence;
    unsigned bootstrap;
} rpl_suite_geomean;

int rpl_suite_geomean_compute(rpl_suite_geomean *out, const rpl_gate_result *const *results,
                              size_t n);

/*
 * The HTML report (one self-contained file: inline CSS and SVG, no script,
 * no network): the suite's summary, and per result its verdict table, GPU
 * state and per runtime kernel the baseline's history chart with its
 * change points, accepted moves and this run marked.  Histories come from
 * `baseline_dir`/<arch>/<test>.json, or each result's baseline file.
 */
int rpl_suite_html(const char *path, const rpl_gate_result *const *results, size_t n,
                   const rpl_suite_geomean *g, const char *baseline_dir);

/* JUnit of several results; with `g`, each suite also carries suite.geomean_* properties. */
int rpl_gate_junit_write_suite(const char *path, const rpl_gate_result *const *results, size_t n,
                               const rpl_suite_geomean *g);

/* What a gate measures: code objects, recorded traces or a program run under a profiler. */
typedef struct rpl_gate_input {
    const char *const *static_files; /* --static FILE... */
    size_t nstatic;
    unsigned block;            /* --block, 0: each kernel's maximum */
    const char *const *traces; /* --trace DB... */
    size_t ntraces;
    const char *const *app_argv; /* -- APP ARGS (NULL-terminated) */
    const char *arch;            /* --arch, or NULL */
    const char *kernel_regex;    /* --kernel, or NULL */
    unsigned warmup;             /* dispatches dropped per kernel and run */
    unsigned repetitions;        /* samples wanted per kernel (app mode) */
    int backend;                 /* rpl_backend of app mode: RPL_BACKEND_AUTO (0) probes the GPUs */
    int kernel_timing;           /* rpl_kernel_timing of app mode (CUPTI) */
    const char *const *launcher; /* app mode: words before the profiler's command, or NULL */
    const char *const *env_set;  /* app mode: "NAME=VALUE" entries for the runs, or NULL */
    int timeout_ms;              /* app mode: limit of each run, 0 for none */
    bool quiet_app;              /* app mode: the program's output is captured, not shown */
    const char *keep_trace;      /* app mode: the last run's trace is written here, or NULL */
} rpl_gate_input;

typedef struct rpl_gate_measurement {
    char *arch, *device, *driver;
    char *toolkit;              /* static: "LLVM 15" from the code objects, or NULL */
    rpl_static_kernel *statics; /* static mode */
    size_t nstatics;
    rpl_runtime_kernel *kernels; /* trace and app modes */
    size_t nkernels;
    unsigned runs;     /* app mode: how often the program ran */
    rpl_gpu_state gpu; /* app mode: the GPU's state while the program ran (invalid: unknown) */
} rpl_gate_measurement;

/* Measured by rpl_gate_measure (rpl/gate_measure.h); release frees the fields. */
void rpl_gate_measurement_release(rpl_gate_measurement *m);

/* Holm step-down: reject[i] for p[i] at family-wise level alpha. */
int rpl_gate_holm(bool *reject, const double *p, size_t n, double alpha);

#endif
