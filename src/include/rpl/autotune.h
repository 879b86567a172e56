/*
 * Autotuning: a model-guided search over a space of kernel parameters that
 * measures a fraction of the space (docs/USER_GUIDE.md section 14).
 *
 * Flow of rpl_tune_run: read the space and expand it under its
 * constraints; build every configuration with the build template (in
 * parallel, identical builds once) and read its static features (VGPRs,
 * LDS, scratch, spills, occupancy) from the built code, pruning the ones
 * that spill or cannot launch; seed phase (a maximin Latin-hypercube sample
 * of the grid); a least-squares model of ln runtime on the standardised
 * parameters and features (linear, quadratic and, when cross-validation
 * says they help, pairwise terms); a guided phase that measures the
 * predicted best (or, when R^2 is below the threshold, more space-filling
 * samples instead); and a confirm phase that measures the best configs again
 * and separates winner and runner-up with the gate's bootstrap rule.
 *
 * Every measurement is one or more runs of the command under the profiler
 * (rpl_gate_measure: device durations of the selected kernel, warm-up
 * dropped), cached in SQLite under a key of the command, build, binary
 * digest, device and driver, so a configuration is never profiled twice.
 */
#ifndef RPL_AUTOTUNE_H
#define RPL_AUTOTUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "rpl/gate.h"

#define RPL_TUNE_SPACE_SCHEMA_VERSION  "1.0"
#define RPL_TUNE_RESULT_SCHEMA_VERSION "1.1"
#define RPL_TUNE_CACHE_SCHEMA          2 /* PRAGMA user_version of the cache */
#define RPL_TUNE_MAX_PARAMS            16
#define RPL_TUNE_MAX_VALUES            1024    /* per parameter */
#define RPL_TUNE_MAX_CONFIGS           1000000 /* combinations before constraints */
#define RPL_TUNE_MAX_EXPAND_OPS        1e9     /* combinations x constraint operations, ~5 s */
#define RPL_TUNE_CV_UNSTABLE           0.10    /* the seed tool's "unstable" threshold */
#define RPL_TUNE_DEFAULT_MIN_R2        0.75
#define RPL_TUNE_DEFAULT_BUDGET        0.30
#define RPL_TUNE_DEFAULT_TOP_K         3
#define RPL_TUNE_DEFAULT_REPETITIONS   20
#define RPL_TUNE_DEFAULT_SEED          20260101u
#define RPL_TUNE_MAX_JOBS              64                        /* GPU slots */
#define RPL_TUNE_MAX_INPUTS            (RPL_TUNE_MAX_PARAMS + 4) /* parameters and features */

/* ---- constraint expressions (expr.c) ---- */

typedef struct rpl_expr rpl_expr;

/*
 * Parse `text` (grammar in expr.c: || && ! comparisons + - * / % unary minus
 * parentheses, decimal numbers, parameter names).  Unknown names and syntax
 * errors fail with RPL_EINPUT: "expression 'T': at position P: expected X,
 * found Y" or "... unknown parameter 'N'".
 */
int rpl_expr_parse(rpl_expr **out, const char *text, const char *const *names, size_t nnames);
/* Evaluate with values[i] for names[i]; division or remainder by zero is RPL_EINPUT. */
int rpl_expr_eval(const rpl_expr *e, const double *values, double *out);
const char *rpl_expr_text(const rpl_expr *e);
/* The text as messages quote it: its first characters and "…" when long. */
void rpl_expr_describe(char *buf, size_t size, const rpl_expr *e);
/* Operations (numbers, names, operators): the most one evaluation visits. */
size_t rpl_expr_size(const rpl_expr *e);
void rpl_expr_free(rpl_expr *e);

/* ---- command templates (template.c) ---- */

/*
 * Split `text` into words with shell-like quoting ('...', "..." with \" and
 * \\, backslash outside quotes) and nothing else of a shell.  *out is a
 * NULL-terminated array (rpl_argv_free).  `what` names the text in errors
 * (RPL_EUSAGE: unclosed quote, nothing to run).
 */
int rpl_words_split(char ***out, size_t *n, const char *text, const char *what);
void rpl_argv_free(char **argv);

typedef struct rpl_template {
    char *text, *what;
    char **words; /* split, placeholders still in them */
    size_t nwords;
    uint64_t used; /* bit i: names[i] appears */
} rpl_template;

/*
 * Split the template and check every {NAME} against `names`: an unknown one
 * is RPL_EUSAGE naming it and the known ones.  {{ and }} are literal braces.
 */
int rpl_template_parse(rpl_template **out, const char *text, const char *what,
                       const char *const *names, size_t nnames);
/*
 * The same check on words already split (a JSON array of words): *used gets
 * a bit per name used.
 */
int rpl_template_check_words(const char *const *words, const char *what, const char *const *names,
                             size_t nnames, uint64_t *used);
/* The argv with values[i] for {names[i]} (NULL-terminated, rpl_argv_free). */
int rpl_template_expand(char ***out, const rpl_template *t, const char *const *names,
                        const char *const *values, size_t nnames);
void rpl_template_free(rpl_template *t);

/* ---- search space (space.c) ---- */

typedef struct rpl_tune_param {
    char *name;
    double *values; /* in the order given */
    size_t nvalues;
    bool log2; /* every value is a positive power of two: the model uses log2(value) */
} rpl_tune_param;

typedef struct rpl_tune_space {
    char *name; /* or NULL */
    rpl_tune_param *params;
    size_t nparams;
    rpl_expr **constraints;
    size_t nconstraints;
    size_t total;     /* combinations of the parameters */
    size_t nconfigs;  /* those that satisfy every constraint */
    uint16_t *levels; /* nconfigs x nparams value indices, odometer order */
} rpl_tune_space;

/* Parse and expand a space document; RPL_EINPUT (naming `what` and the field) when malformed
 * or when no configuration satisfies the constraints. */
int rpl_tune_space_parse(rpl_tune_space **out, const char *text, size_t len, const char *what);
int rpl_tune_space_read(rpl_tune_space **out, const char *path);
void rpl_tune_space_free(rpl_tune_space *s);
double rpl_tune_space_value(const rpl_tune_space *s, size_t config, size_t param);
/* A value as a template gets it: "64", "0.5". */
void rpl_tune_value_text(char *buf, size_t size, double v);
/* "BM=64 BN=32" for the values of every parameter. */
void rpl_tune_space_describe(char *buf, size_t size, const rpl_tune_space *s, const double *vals);

/* ---- space-filling sample (sample.c) ---- */

/*
 * Choose min(n, ncand) of the candidate configs `cand`: among random
 * Latin-hypercube designs over the parameters' value indices (scaled to
 * [0,1]), each point snapped to the nearest unused candidate, the design
 * whose smallest distance between its points and to the `taken` configs is
 * largest.  Deterministic for a seed (GSL mt19937).  `chosen` gets sorted
 * config indices; *nchosen their count.
 */
int rpl_tune_sample(size_t *chosen, size_t *nchosen, size_t n, const rpl_tune_space *s,
                    const size_t *cand, size_t ncand, const size_t *taken, size_t ntaken,
                    unsigned long seed);

/* ---- regression model (model.c) ---- */

typedef struct rpl_tune_term {
    int a, b; /* inputs: b < 0 linear, a == b square, a < b interaction */
} rpl_tune_term;

typedef struct rpl_tune_model {
    size_t ninputs;
    rpl_tune_term *terms; /* without the intercept */
    size_t nterms;
    double *coef;      /* nterms + 1; coef[0] is the intercept */
    size_t n;          /* points fitted */
    double r2;         /* on the points fitted */
    bool *active;      /* per term: false when left out as constant
                          or collinear over the points (coef 0) */
    size_t inactive;   /* terms so left out */
    double cv_rmse;    /* k-fold RMSE of the response; NAN without */
    double cv_error;   /* median held-out |pred/meas - 1| of the runtime; NAN without */
    unsigned folds;    /* k, 0 without cross-validation */
    bool interactions; /* pairwise terms were kept */
    double cv_rmse_base, cv_rmse_interactions; /* both candidates' CV errors (NAN: not fitted) */
    size_t dropped;                            /* terms left out for lack of points */
} rpl_tune_model;

typedef struct rpl_tune_fit_opts {
    const bool *quadratic; /* per input: may have a square term (NULL: none) */
    size_t nparam_inputs;  /* inputs [0, nparam_inputs) may interact pairwise */
    bool try_interactions;
    unsigned folds; /* 0: 5 */
    unsigned long seed;
} rpl_tune_fit_opts;

/*
 * Least squares (gsl_multifit_linear) of y on an intercept, every input,
 * the squares of the quadratic inputs and, when they lower the k-fold
 * cross-validated error, the pairwise products of the first nparam_inputs.
 * Every fit (the folds' too) standardises the term columns over its points
 * and leaves out the constant ones and those collinear with earlier terms.
 * x is n rows of d inputs.  Terms beyond what n points can support (each
 * cross-validation fold keeps one residual degree of freedom) are dropped,
 * last ones first (squares, then features, then parameters).  n == 0 is
 * RPL_EUSAGE.
 */
int rpl_tune_model_fit(rpl_tune_model **out, const double *x, size_t n, size_t d, const double *y,
                       const rpl_tune_fit_opts *opts);
double rpl_tune_model_predict(const rpl_tune_model *m, const double *x);
void rpl_tune_model_free(rpl_tune_model *m);

/* ---- static features of a built program (features.c) ---- */

typedef struct rpl_tune_features {
    bool known;   /* false: the program holds no GPU code for the kernel (note says why) */
    char *kernel; /* mangled name */
    char *arch;
    double vgpr, lds_bytes, scratch_bytes;
    double occupancy; /* theoretical, fraction of the maximum; < 0 unknown */
    long spills;      /* VGPR + SGPR spills, -1 unknown */
    unsigned block, max_block;
    char *prune; /* why the config cannot run (spills, block too large, occupancy 0), or NULL */
    char *note;  /* why the features are unknown, or NULL */
} rpl_tune_features;

/*
 * Read the kernel's resources from the program at `path` and its theoretical
 * occupancy for `block` threads (0: the kernel's maximum).  `kernel_regex`
 * picks the kernel (NULL: the only one); several matching kernels or
 * architectures without `arch` are RPL_EUSAGE.  A program without GPU code
 * is not an error: known = false.
 */
int rpl_tune_features_read(rpl_tune_features *out, const char *path, const char *kernel_regex,
                           const char *arch, unsigned block);
void rpl_tune_features_release(rpl_tune_features *f);

/* ---- device identity and the cache (identity.c, cache.c) ---- */

typedef struct rpl_tune_device {
    char *device;   /* GPU model(s) of this machine, "" when none is seen */
    char *driver;   /* driver version, "" when unknown */
    unsigned count; /* GPUs seen */
} rpl_tune_device;

/* The GPUs of this machine as the drivers show them (NVIDIA /proc, AMD KFD). */
int rpl_tune_device_probe(rpl_tune_device *out);
void rpl_tune_device_release(rpl_tune_device *d);

/*
 * SHA-256 of the GPU code the program at `path` carries (every cubin, PTX
 * entry and AMDGPU code object the codeobj readers find, in order), which
 * stays the same when the same inputs are built again; *kind = "gpu_code".
 * Without GPU code (a host-only program, a script) the whole file's
 * digest; *kind = "binary".
 */
int rpl_tune_code_digest(char out[65], const char **kind, const char *path);

/*
 * SHA-256 of a build's inputs: the expanded build command (with {OUT} as
 * "{OUT}") and the content of every file a word after the first names.
 */
int rpl_tune_inputs_digest(char out[65], const char *const *build_argv);

/*
 * A driver version as the tools print it, normalised: "580.95.05" from
 * nvidia-smi's "Driver Version: 580.95.05   CUDA Version: 13.0", its CSV
 * query or /proc/driver/nvidia/version (proprietary or open kernel module);
 * "13.0" from the CUDA driver API's 13000; "6.10.5" from rocm-smi's
 * "Driver version: 6.10.5" or /sys/module/amdgpu/version.  RPL_EINPUT when
 * the text holds no version.
 */
int rpl_tune_driver_version(char *out, size_t size, const char *text);

/* What identifies a measurement in the cache. */
typedef struct rpl_tune_key_parts {
    const char *cmd_template;
    const char *const *argv;       /* expanded command, the built program as "{OUT}" */
    const char *const *build_argv; /* expanded build (with {OUT} as "{OUT}"), or NULL */
    const char *code_sha256;       /* rpl_tune_code_digest of the program, "" when none */
    const char *code_kind;         /* "gpu_code", "binary" or "" */
    const char *inputs_sha256;     /* rpl_tune_inputs_digest of the build, "" without one */
    const char *device, *driver;
    const char *settings; /* backend, launcher, kernel regex, warm-up: one line */
} rpl_tune_key_parts;

/* The cache key: SHA-256 (hex) of the parts, each length-prefixed. */
int rpl_tune_key(char out[65], const rpl_tune_key_parts *p);

typedef struct rpl_tune_cache rpl_tune_cache;

/*
 * Open (creating it and its folder) the cache at `path`.  RPL_EINPUT when
 * it is not an autotune cache or has a newer schema.  A version 1 cache
 * (keyed by the whole program's digest) is migrated: its entries move to
 * the table measurements_v1, unused, and rpl_tune_cache_note says so.  Safe
 * for concurrent runs: WAL journal, a busy timeout, one transaction per
 * write.
 */
int rpl_tune_cache_open(rpl_tune_cache **out, const char *path);
/* What opening the cache did that the user should hear (a migration), or NULL. */
const char *rpl_tune_cache_note(const rpl_tune_cache *c);
void rpl_tune_cache_close(rpl_tune_cache *c);

typedef struct rpl_tune_entry {
    double *samples; /* ns */
    size_t nsamples;
    char *kernel; /* display name of the measured kernel */
    char *device; /* device the trace names */
    bool unstable;
    bool remeasured; /* its first samples were unstable and replaced: two measurements */
    unsigned runs;   /* profiler runs behind the samples */
} rpl_tune_entry;

/* RPL_ENOTFOUND when the key is absent. */
int rpl_tune_cache_get(rpl_tune_cache *c, const char *key, rpl_tune_entry *out);
/* Insert or replace the entry of `key`. */
int rpl_tune_cache_put(rpl_tune_cache *c, const char *key, const rpl_tune_key_parts *parts,
                       const rpl_tune_entry *e);
void rpl_tune_entry_release(rpl_tune_entry *e);

/* ---- winner and ties (decide.c) ---- */

/*
 * The winner among n candidates is the lowest median; candidate i is tied
 * with it unless the one-sided upper bound of ln(median winner / median i)
 * (rpl_gate_compare_samples, baseline i, candidate the winner) is below 0.
 * tied[winner] is true; cmp[i] holds each comparison (cmp[winner] zero).
 */
int rpl_tune_decide(size_t *winner, bool *tied, rpl_runtime_cmp *cmp, const double *const *samples,
                    const size_t *nsamples, size_t n, const rpl_gate_stat_opts *opts);

/* ---- the tuner (tune.c) ---- */

typedef struct rpl_tune_opts {
    const char *space_path;
    const char *cmd_template;
    const char *build_template; /* or NULL */
    const char *kernel_regex;   /* or NULL: the only kernel */
    const char *arch;           /* static features: the target, or NULL */
    const char *block_expr;     /* static features: threads per block as an expression of the
                                   parameters, or NULL: the kernel's maximum */
    double budget_fraction;     /* > 0: at most floor(this x space size) measurements */
    size_t budget_count;        /* > 0: at most this many measurements (wins over the fraction) */
    unsigned long seed;
    double min_r2;
    unsigned top_k;
    unsigned repetitions;         /* samples per measurement */
    unsigned confirm_repetitions; /* samples of each confirmed config (0: 2 x repetitions) */
    unsigned warmup;
    int timeout_ms; /* per build and per run, 0 none */
    unsigned jobs;  /* measurements at once, one GPU each */
    unsigned build_jobs;
    const char *launcher;       /* prefix command, or NULL */
    const char *const *devices; /* the GPU of each of the `jobs` slots, or NULL: 0..jobs-1 */
    const char *cache_path;     /* NULL: no cache */
    const char *work_dir;       /* NULL: a temporary folder, removed at the end */
    int backend;                /* rpl_backend */
    int kernel_timing;          /* rpl_kernel_timing */
    double confidence;          /* of the winner's comparison, 0.95 */
} rpl_tune_opts;

void rpl_tune_opts_init(rpl_tune_opts *o);

typedef enum rpl_tune_status {
    RPL_TUNE_NOT_RUN = 0,  /* neither measured nor pruned */
    RPL_TUNE_OK,           /* measured */
    RPL_TUNE_BUILD_FAILED, /* its build failed or timed out */
    RPL_TUNE_PRUNED,       /* static features say it spills or cannot launch */
    RPL_TUNE_RUN_FAILED,   /* the command failed */
    RPL_TUNE_TIMEOUT       /* the command ran past the time limit */
} rpl_tune_status;

const char *rpl_tune_status_name(rpl_tune_status s);

typedef struct rpl_tune_config {
    rpl_tune_status status;
    char *message;     /* failure or pruning reason, or NULL */
    const char *phase; /* "seed", "guided", "explore" or "confirm": when first measured */
    bool from_cache;
    double *samples; /* ns, of every measurement (confirm adds) */
    size_t nsamples;
    double median_ns, cv;
    bool unstable, remeasured;
    bool confirmed;      /* measured again by the confirm phase */
    unsigned runs;       /* profiler runs behind the samples (this search's and the cache's) */
    double predicted_ns; /* the last model's prediction, NAN without */
    rpl_tune_features features;
    char *binary; /* built program, or NULL */
    char *binary_sha256;
    char *code_sha256;     /* the cache key's digest of the program (rpl_tune_code_digest) */
    const char *code_kind; /* "gpu_code" or "binary" (static), or NULL */
    char *inputs_sha256;   /* the cache key's digest of the build inputs, or NULL */
    char *kernel;          /* measured kernel's display name */
} rpl_tune_config;

typedef struct rpl_tune_result {
    rpl_tune_space *space;
    rpl_tune_config *configs; /* space->nconfigs */
    size_t budget;            /* measurements allowed: floor(fraction x space size), or the count */
    size_t measurements;      /* measurements spent: configs + confirm and unstable re-measures */
    size_t measured;          /* configs measured (fresh or cached) */
    size_t confirm_remeasures;  /* configs measured again by the confirm phase */
    size_t unstable_remeasures; /* configs measured again because their first CV was high */
    size_t cache_hits;          /* configs whose samples came from the cache */
    size_t profiler_runs;       /* runs of the command under the profiler */
    size_t pruned, build_failed, run_failed;
    size_t builds; /* distinct builds */
    rpl_tune_model *model;
    char **input_names; /* the model's inputs */
    size_t ninputs;
    bool model_trusted; /* R^2 >= min_r2 */
    double cv_error;    /* the seed model's median held-out |pred/meas - 1|, NAN without */
    size_t cv_points;   /* seed configs behind it */
    unsigned cv_folds;
    double min_r2;
    bool exhaustive;   /* the budget covered every runnable config */
    size_t *confirmed; /* configs of the confirm phase */
    size_t nconfirmed;
    size_t confirm_wanted; /* configs the confirm phase would take (top-k, or 2 x top-k) */
    bool confirm_cut;      /* fewer were confirmed because the budget ran out */
    size_t best;           /* config index, or SIZE_MAX when nothing ran */
    bool *tied;            /* per confirmed config: tied with the best */
    rpl_runtime_cmp *cmp;  /* per confirmed config: vs the best */
    size_t nties;          /* confirmed configs tied with the best, the best excluded */
    char *device, *driver;
    double wall_s;
    double build_s;         /* from the first build's start to the last one's end */
    double build_overlap_s; /* of build_s, while configs were measured */
    unsigned jobs;
    char **warnings; /* one line each, also logged */
    size_t nwarnings;
} rpl_tune_result;

/* Median of a config's samples (ns), NAN without samples. */
double rpl_tune_config_median(const rpl_tune_config *c);

/*
 * Run the search.  Bad input (malformed space, unknown placeholder, empty
 * space, bad expression, several kernels) is RPL_EINPUT/RPL_EUSAGE; a missing
 * profiler RPL_EENV; no GPU RPL_ENODEV.  A config whose build or command
 * fails or times out is recorded in the result, not an error; so is a
 * search in which nothing could be measured (best == SIZE_MAX).
 */
int rpl_tune_run(rpl_tune_result **out, const rpl_tune_opts *opts);
void rpl_tune_result_free(rpl_tune_result *r);

/* The result document (docs/schemas/autotune-result.schema.json). */
int rpl_tune_result_json(cJSON **out, const rpl_tune_result *r);
/*
 * The summary for people, appended to `out`: the space, the model and its
 * cross-validation, the measurements spent, the winner and the configs it
 * was confirmed against, the time taken.
 */
int rpl_tune_summary_text(rpl_strbuf *out, const rpl_tune_result *r);
/* Predicted against measured runtime, one point per measured config (SVG). */
int rpl_tune_plot_svg(const char *path, const rpl_tune_result *r);

/* ---- the command's option values and outputs (tune_options.c) ---- */

/*
 * --budget: "30%" or "0.3" set budget_fraction (above 0, at most all),
 * "60" sets budget_count (1 to 1e9); anything else is RPL_EUSAGE.
 */
int rpl_tune_budget_parse(rpl_tune_opts *o, const char *arg);
/*
 * --devices "2,3" into *devices (NULL-terminated, rpl_argv_free; a list
 * already there is freed first): GPU indices or UUIDs, 1 to
 * RPL_TUNE_MAX_JOBS of them, else RPL_EUSAGE.
 */
int rpl_tune_devices_parse(char ***devices, const char *arg);
/* $XDG_CACHE_HOME/rocm-perf/autotune.db, else ~/.cache/...; NULL without either (free()). */
char *rpl_tune_default_cache_path(void);
/*
 * After the search: the result document to `json_path` and the plot to
 * `plot_path` (each unless NULL), then the summary into `summary` (left
 * empty on a failure).  RPL_EFAIL with the counts of failures when no
 * config could be measured (the summary is written all the same).
 */
int rpl_tune_report(rpl_strbuf *summary, const rpl_tune_result *r, const char *json_path,
                    const char *plot_path);

#endif
