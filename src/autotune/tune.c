/*
 * rpl_tune_run: set up (space, templates, device identity, GPU slots,
 * cache, work folder), build, then the seed, guided (or explore) and
 * confirm phases; see rpl/autotune.h for the flow.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, nftw */
#define _XOPEN_SOURCE   700
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/kernel_filter.h"
#include "rpl/names.h"
#include "rpl/profile_backend.h"
#include "rpl/strbuf.h"
#include "tune_int.h"

void rpl_tune_opts_init(rpl_tune_opts *o)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    memset(o, 0, sizeof(*o));
    o->budget_fraction = RPL_TUNE_DEFAULT_BUDGET;
    o->seed = RPL_TUNE_DEFAULT_SEED;
    o->min_r2 = RPL_TUNE_DEFAULT_MIN_R2;
    o->top_k = RPL_TUNE_DEFAULT_TOP_K;
    o->repetitions = RPL_TUNE_DEFAULT_REPETITIONS;
    o->warmup = 1;
    o->jobs = 1;
    o->build_jobs = cpus > 0 ? (unsigned)(cpus > 64 ? 64 : cpus) : 1;
    o->confidence = RPL_GATE_DEFAULT_CONFIDENCE;
}

const char *rpl_tune_status_name(rpl_tune_status s)
{
    static const char *const names[] = {"not_run", "ok",         "build_failed",
                                        "pruned",  "run_failed", "timeout"};

    return RPL_NAME_OF(names, s, "?");
}

void rpl_tune_result_free(rpl_tune_result *r)
{
    if (!r)
        return;
    for (size_t c = 0; r->configs && c < r->space->nconfigs; c++) {
        rpl_tune_config *cfg = &r->configs[c];
        free(cfg->message);
        free(cfg->samples);
        rpl_tune_features_release(&cfg->features);
        RPL_FREE_EACH(cfg->binary, cfg->binary_sha256, cfg->code_sha256, cfg->inputs_sha256,
                      cfg->kernel);
    }
    free(r->configs);
    rpl_tune_space_free(r->space);
    rpl_tune_model_free(r->model);
    rpl_free_strings(r->input_names, r->ninputs);
    RPL_FREE_EACH(r->confirmed, r->tied, r->cmp, r->device, r->driver);
    rpl_free_strings(r->warnings, r->nwarnings);
    free(r);
}

/* ---- set-up ---- */

static int check_templates(tuner *t)
{
    const rpl_tune_opts *o = t->o;
    size_t np = t->s->nparams;
    uint64_t out_bit = (uint64_t)1 << np;
    int rc;

    if ((rc = rpl_template_parse(&t->cmd, o->cmd_template, "--cmd-template", t->names,
                                 o->build_template ? t->nnames : np)) != 0)
        return rc;
    if (o->build_template) {
        if ((rc = rpl_template_parse(&t->build, o->build_template, "--build-template", t->names,
                                     t->nnames)) != 0)
            return rc;
        if (!(t->build->used & out_bit))
            return rpl_error_set(RPL_EUSAGE, "--build-template must write the program to {OUT}");
        if (!(t->cmd->used & out_bit))
            return rpl_error_set(RPL_EUSAGE, "--cmd-template must run {OUT}, the program "
                                             "--build-template makes");
    }
    for (size_t j = 0; j < np; j++) {
        uint64_t bit = (uint64_t)1 << j;
        if (!(t->cmd->used & bit) && !(t->build && (t->build->used & bit)))
            return rpl_error_set(RPL_EUSAGE,
                                 "parameter '%s' appears in no template, so its values would "
                                 "run the same command; add {%s} to a template",
                                 t->names[j], t->names[j]);
    }
    return 0;
}

/* The backend that will run: AUTO needs a GPU here, or --backend with a launcher. */
static int resolve_backend(tuner *t)
{
    rpl_gpu_probe probe;
    rpl_backend b;
    int rc;

    if (t->o->backend != RPL_BACKEND_AUTO) {
        t->backend = t->o->backend;
        return 0;
    }
    if ((rc = rpl_gpu_probe_run(&probe, "")) != 0)
        return rc;
    rc = rpl_backend_select(&b, RPL_BACKEND_AUTO, &probe);
    if (rc == RPL_ENODEV && t->launcher)
        return rpl_error_set(RPL_EUSAGE, "--launcher runs the measurements elsewhere and no GPU "
                                         "is seen here: name the profiler with --backend "
                                         "rocprofv3 or --backend cupti");
    t->backend = (int)b;
    return rc;
}

/*
 * Device visibility of each slot.  ROCm applies ROCR_VISIBLE_DEVICES first
 * and HIP's (and CUDA_VISIBLE_DEVICES, its alias) within what remains, so
 * on AMD the slot's GPU goes to ROCR and HIP sees it as device 0; on NVIDIA
 * CUDA_VISIBLE_DEVICES selects it (and the AMD variables are inert).
 */
static int make_slots(tuner *t)
{
    bool amd = t->backend == RPL_BACKEND_ROCPROFV3;
    size_t per = TUNE_SLOT_VARS + 1;

    if (t->jobs == 1 && !t->o->devices)
        return 0;
    if (!(t->slot_env = calloc(t->jobs * per, sizeof(*t->slot_env))))
        return rpl_error_oom();
    for (unsigned i = 0; i < t->jobs; i++) {
        char dev[64], buf[128];
        const char *names[] = {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                               "ROCR_VISIBLE_DEVICES"};
        if (t->o->devices)
            snprintf(dev, sizeof(dev), "%s", t->o->devices[i]);
        else
            snprintf(dev, sizeof(dev), "%u", i);
        for (size_t k = 0; k < TUNE_SLOT_VARS; k++) {
            snprintf(buf, sizeof(buf), "%s=%s", names[k], amd && k < 2 ? "0" : dev);
            if (!(t->slot_env[i * per + k] = strdup(buf)))
                return rpl_error_oom();
        }
    }
    return 0;
}

static int identify(tuner *t)
{
    rpl_tune_device dev;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = rpl_tune_device_probe(&dev);

    if (rc != 0)
        return rc;
    if (t->launcher) {
        /* The GPU is where the launcher puts the run: the launcher names it. */
        rc = rpl_strbuf_printf(&sb, "launcher: %s", t->o->launcher);
        free(dev.device);
        free(dev.driver);
        dev.device = rc == 0 ? rpl_strbuf_detach(&sb) : NULL;
        dev.driver = strdup("");
        if (rc == 0 && (!dev.device || !dev.driver))
            rc = rpl_error_oom();
    } else if (dev.count && t->jobs > dev.count && !t->o->devices) {
        rc = rpl_error_set(RPL_EUSAGE, "--jobs %u needs %u GPUs; this machine has %u", t->jobs,
                           t->jobs, dev.count);
    }
    rpl_strbuf_release(&sb);
    t->r->device = dev.device;
    t->r->driver = dev.driver;
    if (rc == 0)
        rc = rpl_strbuf_printf(&sb, "backend=%s kernel=%s warmup=%u timing=%s launcher=%s",
                               rpl_backend_name((rpl_backend)t->backend),
                               t->o->kernel_regex ? t->o->kernel_regex : "", t->o->warmup,
                               t->o->kernel_timing ? "serial" : "concurrent",
                               t->o->launcher ? t->o->launcher : "");
    if (rc == 0 && !(t->settings = rpl_strbuf_detach(&sb)))
        rc = rpl_error_oom();
    rpl_strbuf_release(&sb);
    return rc;
}

static int make_work_dir(tuner *t)
{
    const char *tmp = getenv("TMPDIR");
    char buf[4096];

    if (t->o->work_dir) {
        int rc = rpl_mkdir_p(t->o->work_dir);
        if (rc != 0)
            return rc;
        /* Absolute, so {OUT} names the program wherever the command runs it from. */
        if (!(t->work_dir = realpath(t->o->work_dir, NULL)))
            return rpl_error_set(RPL_EIO, "cannot resolve the work folder '%s'", t->o->work_dir);
        return 0;
    }
    snprintf(buf, sizeof(buf), "%s/rocm-perf-autotune.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(buf))
        return rpl_error_set(RPL_EENV, "cannot create a work folder in '%s'",
                             tmp && tmp[0] ? tmp : "/tmp");
    t->remove_work = true;
    return (t->work_dir = strdup(buf)) ? 0 : rpl_error_oom();
}

/* --kernel (and the helper pattern) compile, before anything is built or measured. */
static int check_kernel_regex(const rpl_tune_opts *o)
{
    rpl_kernel_filter f;
    int rc = rpl_kernel_filter_init(&f, o->kernel_regex, NULL, false);

    if (rc == 0)
        rpl_kernel_filter_release(&f);
    return rc;
}

/* --block gives every config a block size (no division by zero), checked up front. */
static int check_block(const tuner *t)
{
    size_t n = t->s->nconfigs;
    unsigned block;

    if (!t->block)
        return 0;
    if ((double)n * (double)rpl_expr_size(t->block) > RPL_TUNE_MAX_EXPAND_OPS)
        return rpl_error_set(RPL_EINPUT,
                             "--block: checking it over the %zu configs would take more than "
                             "%.0e operations: use a shorter expression or a smaller space",
                             n, (double)RPL_TUNE_MAX_EXPAND_OPS);
    for (size_t c = 0; c < n; c++) {
        int rc = tune_block_of(t, c, &block);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int setup(tuner *t)
{
    const rpl_tune_opts *o = t->o;
    size_t np, n;
    size_t nl = 0;
    int rc;

    if (o->jobs < 1 || o->jobs > RPL_TUNE_MAX_JOBS || o->repetitions < 2 || o->top_k < 1 ||
        !(o->min_r2 >= 0 && o->min_r2 <= 1))
        return rpl_error_set(RPL_EUSAGE,
                             "bad autotune options (jobs %u, repetitions %u, top-k "
                             "%u, min R^2 %g)",
                             o->jobs, o->repetitions, o->top_k, o->min_r2);
    t->jobs = o->jobs;
    if ((rc = rpl_tune_space_read(&t->r->space, o->space_path)) != 0)
        return rc;
    t->s = t->r->space;
    np = t->s->nparams;
    n = t->s->nconfigs;
    if (!(t->names = calloc(np + 1, sizeof(*t->names))))
        return rpl_error_oom();
    for (size_t j = 0; j < np; j++)
        t->names[j] = t->s->params[j].name;
    t->names[np] = "OUT";
    t->nnames = np + 1;
    if ((rc = check_templates(t)) != 0)
        return rc;
    if (o->launcher && (rc = rpl_words_split(&t->launcher, &nl, o->launcher, "--launcher")) != 0)
        return rc;
    if (o->block_expr && (rc = rpl_expr_parse(&t->block, o->block_expr, t->names, np)) != 0) {
        rpl_error_prefix("--block");
        return rc;
    }
    if ((rc = check_kernel_regex(o)) != 0 || (rc = check_block(t)) != 0)
        return rc;
    if ((rc = resolve_backend(t)) != 0 || (rc = identify(t)) != 0 || (rc = make_slots(t)) != 0)
        return rc;
    if (!(t->r->configs = calloc(n, sizeof(*t->r->configs))) ||
        !(t->argv = calloc(n, sizeof(*t->argv))) || !(t->keys = calloc(n, sizeof(*t->keys))) ||
        (t->build && !(t->bargv = calloc(n, sizeof(*t->bargv)))))
        return rpl_error_oom();
    for (size_t c = 0; c < n; c++)
        t->r->configs[c].predicted_ns = NAN;
    if (o->cache_path && (rc = rpl_tune_cache_open(&t->cache, o->cache_path)) != 0)
        return rc;
    if (rpl_tune_cache_note(t->cache))
        tune_warn(t, "%s", rpl_tune_cache_note(t->cache));
    if (!t->build && (rc = tune_command_digest(t)) != 0)
        return rc;
    return make_work_dir(t);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st;
    (void)f;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void release(tuner *t)
{
    size_t n = t->s ? t->s->nconfigs : 0;

    for (size_t c = 0; c < n; c++) {
        if (t->argv)
            rpl_argv_free(t->argv[c]);
        if (t->bargv)
            rpl_argv_free(t->bargv[c]);
        if (t->keys)
            free(t->keys[c]);
    }
    RPL_FREE_EACH(t->argv, t->bargv, t->keys);
    for (size_t i = 0; t->slot_env && i < t->jobs * (TUNE_SLOT_VARS + 1); i++)
        free(t->slot_env[i]);
    free(t->slot_env);
    if (t->remove_work && t->work_dir)
        nftw(t->work_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(t->work_dir);
    rpl_tune_cache_close(t->cache);
    rpl_template_free(t->cmd);
    rpl_template_free(t->build);
    rpl_argv_free(t->launcher);
    rpl_expr_free(t->block);
    RPL_FREE_EACH(t->names, t->settings, t->cmd_sha, t->measured_device, t->fatal_msg);
    pthread_mutex_destroy(&t->lock);
}

/* ---- phases ---- */

/* Indices of the configs for which `pred` holds. */
static size_t select_configs(size_t *out, const tuner *t, bool (*pred)(const rpl_tune_config *))
{
    size_t k = 0;

    for (size_t c = 0; c < t->s->nconfigs; c++)
        if (pred(&t->r->configs[c]))
            out[k++] = c;
    return k;
}

static bool untried(const rpl_tune_config *c)
{
    return tune_runnable(c) && c->status == RPL_TUNE_NOT_RUN;
}

static bool tried(const rpl_tune_config *c)
{
    return tune_runnable(c) && c->status != RPL_TUNE_NOT_RUN;
}

typedef struct ranked {
    double key;
    size_t cfg;
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->cfg > y->cfg) - (x->cfg < y->cfg);
}

/*
 * Sort the configs `idx` ascending by predicted runtime (limit 0) or by the
 * median of their first `limit` samples; the index breaks ties.
 */
static int rank_configs(size_t *idx, size_t n, const tuner *t, size_t limit)
{
    ranked *r = malloc((n ? n : 1) * sizeof(*r));

    if (!r)
        return rpl_error_oom();
    for (size_t i = 0; i < n; i++) {
        const rpl_tune_config *c = &t->r->configs[idx[i]];
        r[i].key = limit ? tune_median(c, limit) : c->predicted_ns;
        r[i].cfg = idx[i];
        if (isnan(r[i].key))
            r[i].key = INFINITY;
    }
    qsort(r, n, sizeof(*r), by_rank);
    for (size_t i = 0; i < n; i++)
        idx[i] = r[i].cfg;
    free(r);
    return 0;
}

static int refit(tuner *t, const tune_inputs *in, bool *trusted, bool *warned)
{
    rpl_tune_model *m = NULL;
    int rc = tune_fit(t, in, &m);

    if (rc != 0)
        return rc;
    rpl_tune_model_free(t->r->model);
    t->r->model = m;
    *trusted = m && m->r2 >= t->o->min_r2;
    if (m && !*trusted && !*warned) {
        tune_warn(t,
                  "low R\xc2\xb2 warning: the model explains R\xc2\xb2 = %.2f of the variance of "
                  "ln runtime over %zu configs (below --min-r2 %.2f); its predictions are not "
                  "trusted: sampling the space instead, and the confirm phase takes the best "
                  "%u measured configs",
                  m->r2, m->n, t->o->min_r2, 2 * t->o->top_k);
        *warned = true;
    }
    return 0;
}

/* Configs the confirm phase takes: top-k, twice as many when the model is not trusted. */
static size_t confirm_size(const tuner *t, bool trusted)
{
    return trusted ? t->o->top_k : 2 * (size_t)t->o->top_k;
}

/* Measurements left to the search: the budget less what is spent and the confirm phase. */
static size_t search_left(const tuner *t, bool trusted)
{
    size_t spent = t->r->measurements + confirm_size(t, trusted);

    return t->r->budget > spent ? t->r->budget - spent : 0;
}

/*
 * Seed configs: d + 3 at least (d model inputs), half of what the search may
 * measure when that is more, never past it.  An exhaustive search measures
 * every runnable config as its seed and leaves the confirm phase what remains.
 */
static size_t seed_size(const tuner *t, size_t d, size_t nrun)
{
    size_t nseed = d + 3, room = search_left(t, true);

    if (t->r->exhaustive)
        return nrun;
    if (nseed < (room + 1) / 2)
        nseed = (room + 1) / 2;
    if (nseed > room)
        nseed = room > 0 ? room : 1;
    return nseed;
}

/* Guided or explore batches until the budget, less what the confirm phase will take, is spent. */
static int search_rounds(tuner *t, const tune_inputs *in, size_t *pool, size_t *batch)
{
    bool trusted = false, warned = false;
    size_t nb = 0;
    int rc;

    for (unsigned round = 1;; round++) {
        size_t left, nu, ntried, step;
        if ((rc = refit(t, in, &trusted, &warned)) != 0)
            return rc;
        if (round == 1 && t->r->model) {
            /* The seed is a space-filling sample: its cross-validation speaks for the space. */
            t->r->cv_error = t->r->model->cv_error;
            t->r->cv_points = t->r->model->n;
            t->r->cv_folds = t->r->model->folds;
        }
        left = search_left(t, trusted);
        nu = select_configs(pool, t, untried);
        if (left == 0 || nu == 0)
            break;
        if (trusted) {
            step = t->jobs < left ? t->jobs : left;
            if ((rc = rank_configs(pool, nu, t, 0)) != 0)
                return rc;
            nb = step < nu ? step : nu;
            memcpy(batch, pool, nb * sizeof(*batch));
            rc = tune_measure(t, batch, nb, "guided", t->o->repetitions);
        } else {
            /* A few space-filling batches, so a model that becomes trusted can take over. */
            step = (left + 2) / 3;
            if (step < t->jobs)
                step = t->jobs < left ? t->jobs : left;
            ntried = select_configs(batch, t, tried);
            {
                size_t *taken = malloc((ntried ? ntried : 1) * sizeof(*taken));
                if (!taken)
                    return rpl_error_oom();
                memcpy(taken, batch, ntried * sizeof(*taken));
                rc = rpl_tune_sample(batch, &nb, step, t->s, pool, nu, taken, ntried,
                                     t->o->seed + round);
                free(taken);
            }
            if (rc == 0)
                rc = tune_measure(t, batch, nb, "explore", t->o->repetitions);
        }
        if (rc != 0)
            return rc;
    }
    t->r->model_trusted = trusted;
    return 0;
}

/* The best measured configs again, with more samples; winner and ties. */
static int confirm(tuner *t, size_t *pool)
{
    rpl_tune_result *r = t->r;
    size_t k = confirm_size(t, r->model_trusted);
    size_t room = r->budget > r->measurements ? r->budget - r->measurements : 0;
    unsigned samples =
        t->o->confirm_repetitions ? t->o->confirm_repetitions : 2 * t->o->repetitions;
    size_t n = select_configs(pool, t, tune_measured), winner;
    const double **samp;
    size_t *ns;
    rpl_gate_stat_opts so;
    int rc;

    r->best = SIZE_MAX;
    if (n == 0)
        return 0;
    if ((rc = rank_configs(pool, n, t, t->o->repetitions)) != 0)
        return rc;
    r->confirm_wanted = n < k ? n : k;
    r->nconfirmed = r->confirm_wanted < room ? r->confirm_wanted : room;
    if (r->nconfirmed < r->confirm_wanted) {
        r->confirm_cut = true;
        tune_warn(t,
                  "confirm phase cut to %zu of %zu configs: the budget of %zu measurements is "
                  "spent%s",
                  r->nconfirmed, r->confirm_wanted, r->budget,
                  r->nconfirmed ? "" : " (the best measured config wins without a comparison)");
    }
    if (r->nconfirmed == 0) {
        r->best = pool[0];
        return 0;
    }
    if (!(r->confirmed = malloc(r->nconfirmed * sizeof(*r->confirmed))) ||
        !(r->tied = calloc(r->nconfirmed, sizeof(*r->tied))) ||
        !(r->cmp = calloc(r->nconfirmed, sizeof(*r->cmp))))
        return rpl_error_oom();
    memcpy(r->confirmed, pool, r->nconfirmed * sizeof(*pool));
    /* Each confirmed config is one measurement of the budget, whether or not the cache has
     * its samples already, so a cached re-run makes the same choices. */
    r->measurements += r->nconfirmed;
    r->confirm_remeasures = r->nconfirmed;
    for (size_t i = 0; i < r->nconfirmed; i++)
        r->configs[r->confirmed[i]].confirmed = true;
    if ((rc = tune_measure(t, r->confirmed, r->nconfirmed, "confirm", samples)) != 0)
        return rc;
    samp = malloc(r->nconfirmed * sizeof(*samp));
    ns = malloc(r->nconfirmed * sizeof(*ns));
    if (!samp || !ns) {
        free(samp);
        free(ns);
        return rpl_error_oom();
    }
    for (size_t i = 0; i < r->nconfirmed; i++) {
        samp[i] = r->configs[r->confirmed[i]].samples;
        ns[i] = r->configs[r->confirmed[i]].nsamples;
    }
    rpl_gate_stat_opts_init(&so);
    so.confidence = t->o->confidence;
    so.seed = t->o->seed;
    rc = rpl_tune_decide(&winner, r->tied, r->cmp, samp, ns, r->nconfirmed, &so);
    free(samp);
    free(ns);
    if (rc != 0)
        return rc;
    r->best = r->confirmed[winner];
    for (size_t i = 0; i < r->nconfirmed; i++)
        r->nties += i != winner && r->tied[i];
    return 0;
}

static void count_outcomes(rpl_tune_result *r)
{
    for (size_t c = 0; c < r->space->nconfigs; c++) {
        rpl_tune_status s = r->configs[c].status;
        r->pruned += s == RPL_TUNE_PRUNED;
        r->build_failed += s == RPL_TUNE_BUILD_FAILED;
        r->run_failed += s == RPL_TUNE_RUN_FAILED || s == RPL_TUNE_TIMEOUT;
    }
}

/* Model inputs the configs may have before they are built: the parameters that vary, and
 * the static features when there is a build. */
static size_t inputs_bound(const tuner *t)
{
    size_t d = t->build ? 4 : 0;

    for (size_t j = 0; j < t->s->nparams; j++)
        d += t->s->params[j].nvalues > 1;
    return d;
}

static bool in_list(const size_t *list, size_t n, size_t c)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == c)
            return true;
    return false;
}

/*
 * The seed sample while the builds run: a space-filling sample of the whole
 * space, its builds first; configs that fail to build or are pruned give way
 * to a further sample away from the runnable ones, until `nseed` can run or
 * nothing is left.  Choices depend on the build outcomes only, not on their
 * timing.  seeds gets the runnable seed configs; scratch holds nconfigs.
 */
static int early_seed(tuner *t, tune_builds **b, size_t *seeds, size_t *nseeds, size_t *scratch)
{
    size_t nc = t->s->nconfigs, nseed = seed_size(t, inputs_bound(t), nc), nchosen = 0;
    size_t *chosen = malloc(nc * sizeof(*chosen)), ncand, nb, nrun = 0;
    int rc;

    *nseeds = 0;
    if (!chosen)
        return rpl_error_oom();
    for (size_t c = 0; c < nc; c++)
        scratch[c] = c;
    rc = rpl_tune_sample(chosen, &nchosen, nseed, t->s, scratch, nc, NULL, 0, t->o->seed);
    if (rc == 0)
        rc = tune_build_start(t, b, chosen, nchosen);
    for (unsigned more = 1; rc == 0; more++) {
        if ((rc = tune_build_wait(t, *b, chosen, nchosen)) != 0)
            break;
        nrun = 0;
        for (size_t i = 0; i < nchosen; i++)
            if (tune_runnable(&t->r->configs[chosen[i]]))
                seeds[nrun++] = chosen[i];
        ncand = 0;
        for (size_t c = 0; c < nc; c++)
            if (!in_list(chosen, nchosen, c))
                scratch[ncand++] = c;
        if (nrun >= nseed || ncand == 0)
            break;
        rc = rpl_tune_sample(chosen + nchosen, &nb, nseed - nrun, t->s, scratch, ncand, seeds, nrun,
                             t->o->seed + 1000 + more);
        nchosen += nb;
    }
    free(chosen);
    *nseeds = nrun;
    return rc;
}

static void set_budget(tuner *t, size_t nrun)
{
    rpl_tune_result *r = t->r;
    size_t nc = t->s->nconfigs;

    /* Every measurement counts: configs, confirm and unstable re-measures (at least one). */
    r->budget = t->o->budget_count ? t->o->budget_count
                                   : (size_t)floor(t->o->budget_fraction * (double)nc + 1e-9);
    if (r->budget < 1)
        r->budget = 1;
    r->exhaustive = r->budget >= nrun;
}

/*
 * Build, then seed, guided or explore batches and the confirm phase.  With
 * a build and a budget below the space, the seed configs are built first
 * and measured while the others build; the model waits for all builds (it
 * takes their features).
 */
static int run(tuner *t)
{
    rpl_tune_result *r = t->r;
    size_t nc = t->s->nconfigs, nrun = 0, nseeds = 0, nb = 0;
    size_t *pool = malloc(nc * sizeof(*pool)), *batch = malloc(nc * sizeof(*batch));
    tune_builds *b = NULL;
    tune_inputs in = {0};
    bool overlap;
    int rc;

    if (!pool || !batch) {
        free(pool);
        free(batch);
        return rpl_error_oom();
    }
    set_budget(t, nc);
    overlap = t->build && !r->exhaustive;
    if (overlap) {
        rc = early_seed(t, &b, batch, &nseeds, pool);
        t->progress = rpl_progress_start("autotune: measuring", r->budget);
        if (rc == 0)
            rc = tune_measure(t, batch, nseeds, "seed", t->o->repetitions);
    } else {
        rc = tune_build_start(t, &b, NULL, 0);
    }
    if (rc == 0)
        rc = tune_build_finish(t, b, t->measure_start);
    tune_build_free(b);
    if (rc == 0) {
        nrun = select_configs(pool, t, tune_runnable);
        set_budget(t, nrun);
    }
    if (rc == 0 && nrun > 0 && (rc = tune_inputs_make(&in, t)) == 0) {
        r->ninputs = in.d;
        r->input_names = in.names;
        in.names = NULL;
        if (!t->progress)
            t->progress = rpl_progress_start("autotune: measuring", r->budget);
        if (!overlap)
            rc = rpl_tune_sample(batch, &nb, seed_size(t, in.d, nrun), t->s, pool, nrun, NULL, 0,
                                 t->o->seed);
        else if (r->exhaustive)
            nb = select_configs(batch, t, untried); /* pruning left no more than the budget */
        if (rc == 0 && nb)
            rc = tune_measure(t, batch, nb, "seed", t->o->repetitions);
        if (rc == 0)
            rc = search_rounds(t, &in, pool, batch);
        if (rc == 0)
            rc = confirm(t, pool);
    } else if (rc == 0) {
        r->best = SIZE_MAX;
    }
    rpl_progress_finish(t->progress);
    t->progress = NULL;
    in.d = 0; /* the names moved to the result */
    tune_inputs_release(&in);
    count_outcomes(r);
    if (rc == 0 && nrun == 0)
        tune_warn(t, "no configuration can run: %zu failed to build, %zu were pruned",
                  r->build_failed, r->pruned);
    free(pool);
    free(batch);
    return rc;
}

int rpl_tune_run(rpl_tune_result **out, const rpl_tune_opts *o)
{
    tuner t = {0};
    double t0 = rpl_clock_mono_s();
    int rc;

    *out = NULL;
    if (!(t.r = calloc(1, sizeof(*t.r))))
        return rpl_error_oom();
    t.o = o;
    t.r->best = SIZE_MAX;
    t.r->cv_error = NAN;
    t.r->min_r2 = o->min_r2;
    t.r->jobs = o->jobs;
    pthread_mutex_init(&t.lock, NULL);
    rc = setup(&t);
    if (rc == 0)
        rc = run(&t);
    t.r->wall_s = rpl_clock_mono_s() - t0;
    release(&t);
    if (rc != 0) {
        rpl_tune_result_free(t.r);
        return rc;
    }
    *out = t.r;
    return 0;
}
