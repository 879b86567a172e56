/* Library-internal state of one rpl_tune_run (src/autotune/tune*.c). */
#ifndef RPL_TUNE_INT_H
#define RPL_TUNE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "rpl/autotune.h"
#include "rpl/log.h"

#define TUNE_SLOT_VARS 3 /* CUDA_, HIP_ and ROCR_VISIBLE_DEVICES */

typedef struct tuner {
    const rpl_tune_opts *o;
    rpl_tune_result *r;
    const rpl_tune_space *s;
    const char **names; /* the parameters' names, then "OUT" */
    size_t nnames;
    rpl_template *cmd, *build;
    char **launcher; /* split --launcher, or NULL */
    rpl_expr *block; /* --block, or NULL */
    char *work_dir;
    bool remove_work;
    rpl_tune_cache *cache;
    int backend;           /* resolved rpl_backend */
    char *settings;        /* the cache key's settings line */
    char *cmd_sha;         /* digest of the command's program when nothing is built */
    char *measured_device; /* the device the first trace names */
    char ***argv;          /* per config: the expanded command (after the build) */
    char ***bargv;         /* per config: the expanded build with {OUT} kept, or NULL */
    char **keys;           /* per config: the cache key, or NULL */
    char **slot_env;       /* jobs x (TUNE_SLOT_VARS + 1), NULL-terminated per slot; NULL: none */
    unsigned jobs;
    /* measurement batches */
    pthread_mutex_t lock;
    int fatal; /* a worker's error that ends the search (no GPU, no profiler...) */
    char *fatal_msg;
    rpl_progress *progress;
    size_t progress_done;
    double measure_start; /* when the first measurement started (CLOCK_MONOTONIC s), 0 before */
} tuner;

/* Text of a value as templates get it. */
typedef char tune_text[32];

/*
 * Config c's values: vals[j] and text[j] per parameter, vp[j] pointing at
 * text[j] and vp[nparams] at `out` (the OUT placeholder).  vp holds nnames.
 */
void tune_values(const tuner *t, size_t c, double *vals, tune_text *text, const char **vp,
                 const char *out);

/* Threads per block of config c from --block, 0 without. */
int tune_block_of(const tuner *t, size_t c, unsigned *out);

/*
 * The builds (identical ones once) and static features of every config,
 * run in the background: tune_build_start starts them, the groups of
 * `first` ahead of the rest (without a build template it only expands the
 * commands); tune_build_wait returns once the configs `cfgs` are built
 * (pruned or failed) and moves them ahead of the queue; tune_build_finish
 * waits for all and sets the result's build times (measure_start: when the
 * first measurement started, 0 if none), tune_build_free releases.  The
 * returns are the errors that end the search.
 */
typedef struct tune_builds tune_builds;
int tune_build_start(tuner *t, tune_builds **out, const size_t *first, size_t nfirst);
int tune_build_wait(tuner *t, tune_builds *b, const size_t *cfgs, size_t n);
int tune_build_finish(tuner *t, tune_builds *b, double measure_start);
void tune_build_free(tune_builds *b);

/* The digest of the command's program (argv[0] looked up in PATH) when nothing is built. */
int tune_command_digest(tuner *t);

/* Cache key of config c (t->keys[c]), computed once. */
int tune_key(tuner *t, size_t c);

/*
 * Measure the configs (fresh ones on the GPU slots, the rest from the
 * cache) with `phase`; each gets at least `samples` samples (a config that
 * has some gets more).  Failures are recorded in the configs; the return is
 * an error only for what ends the search.
 */
int tune_measure(tuner *t, const size_t *cfgs, size_t n, const char *phase, unsigned samples);

/* The model inputs (standardised) of every config and their names. */
typedef struct tune_inputs {
    double *x; /* nconfigs x d */
    size_t d;
    size_t nparam_inputs;
    bool *quadratic;
    char **names;
} tune_inputs;

int tune_inputs_make(tune_inputs *in, const tuner *t);
void tune_inputs_release(tune_inputs *in);

/* Fit the model on the measured configs and predict every runnable one. */
int tune_fit(tuner *t, const tune_inputs *in, rpl_tune_model **out);

/* Median of the first `limit` samples (0: all) of a config. */
double tune_median(const rpl_tune_config *c, size_t limit);

bool tune_runnable(const rpl_tune_config *c);
bool tune_measured(const rpl_tune_config *c);

/* Add a warning line to the result and log it. */
void tune_warn(tuner *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
