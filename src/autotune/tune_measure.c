/*
 * Measurements of the tuner: the cache first, then the rest on `jobs` GPU
 * slots at once.  Each worker thread owns one slot (its device visibility)
 * for its whole life, so two measurements never share a GPU.  A
 * measurement is rpl_gate_measure of the config's command (the gate's
 * profiler settings: device durations of the selected kernel, warm-up
 * dropped); a coefficient of variation above RPL_TUNE_CV_UNSTABLE is
 * measured once more, and marked unstable when it stays above.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_statistics_double.h>

#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/gate_measure.h"
#include "rpl/strbuf.h"
#include "tune_int.h"

typedef struct job {
    size_t cfg;
    unsigned want; /* samples the config should have */
    bool fresh;    /* first measurement (not extra samples of a confirmed config) */
} job;

typedef struct pool {
    tuner *t;
    job *jobs;
    size_t njobs, next;
} pool;

double tune_median(const rpl_tune_config *c, size_t limit)
{
    size_t n = limit && limit < c->nsamples ? limit : c->nsamples;
    double *tmp, m;

    if (n == 0 || !(tmp = malloc(n * sizeof(*tmp))))
        return NAN;
    memcpy(tmp, c->samples, n * sizeof(*tmp));
    m = gsl_stats_median(tmp, 1, n);
    free(tmp);
    return m;
}

double rpl_tune_config_median(const rpl_tune_config *c)
{
    return tune_median(c, 0);
}

static double cv_of(const double *x, size_t n)
{
    double mean;

    if (n < 2)
        return 0;
    mean = gsl_stats_mean(x, 1, n);
    return mean > 0 ? gsl_stats_sd_m(x, 1, n, mean) / mean : 0;
}

/*
 * The cache key's parts of config c.  The command names the built program
 * as "{OUT}": its path is in a work folder that differs from run to run,
 * and the digests say what the program is.  *kargv is the command so
 * expanded (NULL without a build: the argv itself), for rpl_argv_free.
 */
static int key_parts(tuner *t, size_t c, rpl_tune_key_parts *p, char ***kargv)
{
    rpl_tune_config *cfg = &t->r->configs[c];
    int rc = 0;

    memset(p, 0, sizeof(*p));
    *kargv = NULL;
    if (t->build) {
        double vals[RPL_TUNE_MAX_PARAMS];
        tune_text text[RPL_TUNE_MAX_PARAMS];
        const char *vp[RPL_TUNE_MAX_PARAMS + 1];
        tune_values(t, c, vals, text, vp, "{OUT}");
        if ((rc = rpl_template_expand(kargv, t->cmd, t->names, vp, t->nnames)) != 0)
            return rc;
    }
    p->cmd_template = t->cmd->text;
    p->argv = (const char *const *)(*kargv ? *kargv : t->argv[c]);
    p->build_argv = t->bargv ? (const char *const *)t->bargv[c] : NULL;
    if (cfg->code_sha256) {
        p->code_sha256 = cfg->code_sha256;
        p->code_kind = cfg->code_kind;
        p->inputs_sha256 = cfg->inputs_sha256;
    } else {
        /* Not built here: the program's whole digest (how it was built is unknown). */
        p->code_sha256 = t->cmd_sha ? t->cmd_sha : "";
        p->code_kind = t->cmd_sha ? "binary" : "";
        p->inputs_sha256 = "";
    }
    p->device = t->r->device;
    p->driver = t->r->driver;
    p->settings = t->settings;
    return 0;
}

int tune_key(tuner *t, size_t c)
{
    rpl_tune_key_parts p;
    char key[65], **kargv = NULL;
    int rc;

    if (t->keys[c])
        return 0;
    if ((rc = key_parts(t, c, &p, &kargv)) == 0)
        rc = rpl_tune_key(key, &p);
    rpl_argv_free(kargv);
    if (rc != 0)
        return rc;
    return (t->keys[c] = strdup(key)) ? 0 : rpl_error_oom();
}

/* One rpl_gate_measure of config c on `slot` for `reps` samples: the selected kernel's. */
static int measure_once(tuner *t, size_t c, unsigned slot, unsigned reps, rpl_gate_measurement *m)
{
    rpl_gate_input in = {0};
    int rc;

    in.app_argv = (const char *const *)t->argv[c];
    in.kernel_regex = t->o->kernel_regex;
    in.warmup = t->o->warmup;
    in.repetitions = reps;
    in.backend = t->backend;
    in.kernel_timing = t->o->kernel_timing;
    in.launcher = (const char *const *)t->launcher;
    in.env_set =
        t->slot_env ? (const char *const *)t->slot_env + slot * (TUNE_SLOT_VARS + 1) : NULL;
    in.timeout_ms = t->o->timeout_ms;
    in.quiet_app = true;
    rc = rpl_gate_measure(m, &in);
    t->r->configs[c].runs += m->runs ? m->runs : 1; /* only this worker touches config c */
    pthread_mutex_lock(&t->lock);
    t->r->profiler_runs += m->runs ? m->runs : 1;
    pthread_mutex_unlock(&t->lock);
    if (rc == 0 && m->nkernels > 1) {
        rc = rpl_error_set(RPL_EUSAGE,
                           "the command runs several kernels ('%s', '%s'%s): choose one with "
                           "--kernel",
                           m->kernels[0].name, m->kernels[1].name, m->nkernels > 2 ? ", ..." : "");
        rpl_gate_measurement_release(m);
    }
    return rc;
}

/* Errors that are the config's own (recorded) rather than the search's (fatal). */
static bool config_error(int rc)
{
    return rc == RPL_ETIMEOUT || rc == RPL_ERROR || rc == RPL_EINPUT || rc == RPL_ENOTFOUND;
}

static int append_samples(rpl_tune_config *cfg, const rpl_runtime_kernel *k, bool replace)
{
    size_t base = replace ? 0 : cfg->nsamples;
    double *s = realloc(cfg->samples, (base + k->nsamples) * sizeof(*s));

    if (!s)
        return rpl_error_oom();
    memcpy(s + base, k->samples, k->nsamples * sizeof(*s));
    cfg->samples = s;
    cfg->nsamples = base + k->nsamples;
    if (!cfg->kernel && !(cfg->kernel = strdup(k->name)))
        return rpl_error_oom();
    return 0;
}

static void record_failure(rpl_tune_config *cfg, int rc)
{
    cfg->status = rc == RPL_ETIMEOUT ? RPL_TUNE_TIMEOUT : RPL_TUNE_RUN_FAILED;
    free(cfg->message);
    cfg->message = strdup(rpl_error_last()->message);
    rpl_error_clear();
}

static void note_device(tuner *t, const rpl_gate_measurement *m)
{
    pthread_mutex_lock(&t->lock);
    if (!t->measured_device && m->device)
        t->measured_device = strdup(m->device);
    pthread_mutex_unlock(&t->lock);
}

/* One more measurement of the budget for an unstable config, when one is left. */
static bool charge_remeasure(tuner *t)
{
    bool ok;

    pthread_mutex_lock(&t->lock);
    ok = t->r->measurements < t->r->budget;
    if (ok) {
        t->r->measurements++;
        t->r->unstable_remeasures++;
    }
    pthread_mutex_unlock(&t->lock);
    return ok;
}

/* The first measurement of a config, re-measured once when unstable. */
static int measure_fresh(tuner *t, size_t c, unsigned slot, unsigned want)
{
    rpl_tune_config *cfg = &t->r->configs[c];
    rpl_gate_measurement m;
    int rc = measure_once(t, c, slot, want, &m);

    if (config_error(rc)) {
        record_failure(cfg, rc);
        return 0;
    }
    if (rc != 0)
        return rc;
    note_device(t, &m);
    rc = append_samples(cfg, &m.kernels[0], true);
    cfg->status = RPL_TUNE_OK;
    cfg->cv = cv_of(cfg->samples, cfg->nsamples);
    rpl_gate_measurement_release(&m);
    if (rc != 0 || cfg->cv <= RPL_TUNE_CV_UNSTABLE)
        return rc;
    if (!charge_remeasure(t)) {
        /* No measurement of the budget is left for it: it stays, marked unstable. */
        cfg->unstable = true;
        return 0;
    }
    cfg->remeasured = true;
    rc = measure_once(t, c, slot, want, &m);
    if (config_error(rc)) {
        /* The first samples stay; the config counts as unstable. */
        rpl_error_clear();
        cfg->unstable = true;
        return 0;
    }
    if (rc != 0)
        return rc;
    rc = append_samples(cfg, &m.kernels[0], true);
    cfg->cv = cv_of(cfg->samples, cfg->nsamples);
    cfg->unstable = cfg->cv > RPL_TUNE_CV_UNSTABLE;
    rpl_gate_measurement_release(&m);
    return rc;
}

/* More samples for a measured config (the confirm phase). */
static int measure_more(tuner *t, size_t c, unsigned slot, unsigned want)
{
    rpl_tune_config *cfg = &t->r->configs[c];
    rpl_gate_measurement m;
    int rc = measure_once(t, c, slot, want - (unsigned)cfg->nsamples, &m);

    if (config_error(rc)) {
        char line[512];
        snprintf(line, sizeof(line), "%s", rpl_error_last()->message);
        rpl_error_clear();
        tune_warn(t, "config %zu: its confirm measurement failed (%s); its earlier samples stay", c,
                  line);
        return 0;
    }
    if (rc != 0)
        return rc;
    note_device(t, &m);
    rc = append_samples(cfg, &m.kernels[0], false);
    cfg->cv = cv_of(cfg->samples, cfg->nsamples);
    rpl_gate_measurement_release(&m);
    return rc;
}

static void *worker(void *arg)
{
    pool *p = ((void **)arg)[0];
    unsigned slot = (unsigned)(size_t)((void **)arg)[1];
    tuner *t = p->t;

    for (;;) {
        size_t i;
        int rc;
        job *j;
        pthread_mutex_lock(&t->lock);
        i = t->fatal ? p->njobs : p->next++;
        pthread_mutex_unlock(&t->lock);
        if (i >= p->njobs)
            break;
        j = &p->jobs[i];
        rc = j->fresh ? measure_fresh(t, j->cfg, slot, j->want)
                      : measure_more(t, j->cfg, slot, j->want);
        pthread_mutex_lock(&t->lock);
        if (rc != 0 && !t->fatal) {
            t->fatal = rc;
            t->fatal_msg = strdup(rpl_error_last()->message);
        }
        rpl_progress_update(t->progress, ++t->progress_done);
        pthread_mutex_unlock(&t->lock);
    }
    return NULL;
}

static int run_pool(tuner *t, job *jobs, size_t n)
{
    unsigned nthreads = t->jobs < n ? t->jobs : (unsigned)n, started = 0;
    pthread_t th[RPL_TUNE_MAX_JOBS];
    void *args[RPL_TUNE_MAX_JOBS][2];
    pool p = {t, jobs, n, 0};
    int rc = 0;

    if (t->measure_start == 0)
        t->measure_start = rpl_clock_mono_s();

    for (unsigned i = 0; i < nthreads; i++) {
        args[i][0] = &p;
        args[i][1] = (void *)(size_t)i;
        if (pthread_create(&th[i], NULL, worker, args[i]) != 0) {
            rc = rpl_error_set(RPL_ERROR, "cannot start a measurement thread");
            break;
        }
        started++;
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (rc == 0 && t->fatal)
        rc = rpl_error_set(t->fatal, "%s", t->fatal_msg ? t->fatal_msg : "measurement failed");
    return rc;
}

/* Fill a config from its cache entry. */
static int take_entry(tuner *t, rpl_tune_config *cfg, rpl_tune_entry *e)
{
    /* Charged as the run that stored it was, so a cached re-run makes the same choices. */
    cfg->remeasured = e->remeasured && charge_remeasure(t);
    cfg->samples = e->samples;
    cfg->nsamples = e->nsamples;
    cfg->kernel = e->kernel;
    e->samples = NULL;
    e->kernel = NULL;
    cfg->unstable = e->unstable;
    cfg->runs = e->runs;
    cfg->cv = cv_of(cfg->samples, cfg->nsamples);
    cfg->status = RPL_TUNE_OK;
    cfg->from_cache = true;
    return 0;
}

static int store(tuner *t, size_t c)
{
    rpl_tune_config *cfg = &t->r->configs[c];
    rpl_tune_key_parts p;
    rpl_tune_entry e = {0};
    char **kargv = NULL;
    int rc = key_parts(t, c, &p, &kargv);

    e.samples = cfg->samples;
    e.nsamples = cfg->nsamples;
    e.kernel = cfg->kernel;
    e.device = t->measured_device;
    e.unstable = cfg->unstable;
    e.remeasured = cfg->remeasured;
    e.runs = cfg->runs;
    if (rc == 0)
        rc = rpl_tune_cache_put(t->cache, t->keys[c], &p, &e);
    rpl_argv_free(kargv);
    return rc;
}

int tune_measure(tuner *t, const size_t *cfgs, size_t n, const char *phase, unsigned samples)
{
    job *jobs = calloc(n ? n : 1, sizeof(*jobs));
    size_t njobs = 0;
    int rc = 0;

    if (!jobs)
        return rpl_error_oom();
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t c = cfgs[i];
        rpl_tune_config *cfg = &t->r->configs[c];
        if (!tune_runnable(cfg))
            continue;
        if (cfg->status == RPL_TUNE_NOT_RUN) {
            rpl_tune_entry e;
            cfg->phase = phase;
            t->r->measured++;
            t->r->measurements++; /* no worker runs yet: no lock needed */
            if (t->cache && (rc = tune_key(t, c)) == 0 &&
                (rc = rpl_tune_cache_get(t->cache, t->keys[c], &e)) == 0) {
                take_entry(t, cfg, &e);
                rpl_tune_entry_release(&e);
                t->r->cache_hits++;
                rpl_progress_update(t->progress, ++t->progress_done);
                if (cfg->nsamples < samples)
                    jobs[njobs++] = (job){c, samples, false};
                continue;
            }
            if (rc == RPL_EINPUT) {
                tune_warn(t, "%s; measuring again", rpl_error_last()->message);
                rpl_error_clear();
            } else if (rc != 0 && rc != RPL_ENOTFOUND) {
                break;
            }
            rc = 0;
            jobs[njobs++] = (job){c, samples, true};
        } else if (cfg->status == RPL_TUNE_OK && cfg->nsamples < samples) {
            jobs[njobs++] = (job){c, samples, false};
        }
    }
    if (rc == 0 && njobs)
        rc = run_pool(t, jobs, njobs);
    for (size_t i = 0; rc == 0 && t->cache && i < njobs; i++) {
        size_t c = jobs[i].cfg;
        if (t->r->configs[c].status == RPL_TUNE_OK && (rc = tune_key(t, c)) == 0)
            rc = store(t, c);
    }
    free(jobs);
    return rc;
}
