/*
 * The build step of the tuner: every configuration's build command
 * expanded, identical ones (those that differ only in runtime parameters)
 * built once, up to --build-jobs at a time; then the static features of the
 * selected kernel in each built program, and the configs pruned by them.
 *
 * The builds run in the background while the seed configs are measured:
 * the groups the search waits for go to the front of the queue, and a
 * build thread that takes a group nobody waits for lowers its CPU priority
 * (nice) for good, so the remaining builds disturb the measurements little.
 */
#define _GNU_SOURCE /* syscall */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/sha256.h"
#include "rpl/spawn.h"
#include "rpl/strbuf.h"
#include "tune_int.h"

#define BUILD_CAPTURE   ((size_t)64 << 10)
#define MAX_BLOCK       (1u << 20)
#define MAX_THREADS     64
#define BACKGROUND_NICE 10 /* added to the niceness of builds nobody waits for */

typedef struct group {
    size_t *cfgs;
    size_t n;
    char *out;   /* the program it builds */
    bool urgent; /* the search waits for it */
    bool done;
} group;

struct tune_builds {
    tuner *t;
    group *groups;
    size_t *queue;    /* group indices in build order; [next, ngroups) not started */
    size_t *group_of; /* per config: its group */
    size_t ngroups, next, done;
    rpl_progress *progress; /* while the search waits; NULL in the background */
    pthread_cond_t changed; /* a build finished (with t->lock) */
    pthread_t th[MAX_THREADS];
    unsigned nthreads;
    bool stop; /* the search ended early: start no more builds */
    double t0, last_end;
};

static int join_words(char **out, char *const *words)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    for (size_t i = 0; rc == 0 && words[i]; i++)
        rc = rpl_strbuf_printf(&sb, "%s%s", i ? "\x1f" : "", words[i]);
    if (rc == 0 && rpl_strbuf_grow(&sb, 1) != 0)
        rc = rpl_error_oom();
    *out = rc == 0 ? rpl_strbuf_detach(&sb) : NULL;
    rpl_strbuf_release(&sb);
    return rc;
}

int tune_block_of(const tuner *t, size_t c, unsigned *out)
{
    double vals[RPL_TUNE_MAX_PARAMS], v;
    tune_text text[RPL_TUNE_MAX_PARAMS];
    const char *vp[RPL_TUNE_MAX_PARAMS + 1];
    int rc;

    *out = 0;
    if (!t->block)
        return 0;
    tune_values(t, c, vals, text, vp, "");
    rc = rpl_expr_eval(t->block, vals, &v);
    if (rc != 0 || !(v >= 1 && v <= MAX_BLOCK && v == floor(v))) {
        char cfg[512], shown[64];
        rpl_tune_space_describe(cfg, sizeof(cfg), t->s, vals);
        if (rc != 0) {
            rpl_error_prefix("--block at %s", cfg);
            return rc;
        }
        rpl_expr_describe(shown, sizeof(shown), t->block);
        return rpl_error_set(RPL_EINPUT,
                             "--block '%s' is %g at %s, not a whole number of "
                             "threads from 1 to %u",
                             shown, v, cfg, MAX_BLOCK);
    }
    *out = (unsigned)v;
    return 0;
}

static void set_failed(rpl_tune_config *c, rpl_tune_status st, const char *msg)
{
    c->status = st;
    free(c->message);
    c->message = strdup(msg);
}

/* Features of each config of a built group; pruning.  Errors here end the search. */
static int group_features(tuner *t, group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        rpl_tune_config *c = &t->r->configs[g->cfgs[i]];
        unsigned block;
        int rc = tune_block_of(t, g->cfgs[i], &block);
        if (rc == 0)
            rc =
                rpl_tune_features_read(&c->features, g->out, t->o->kernel_regex, t->o->arch, block);
        if (rc != 0)
            return rc;
        if (c->features.prune)
            set_failed(c, RPL_TUNE_PRUNED, c->features.prune);
    }
    return 0;
}

/*
 * The line of a compiler's output that says what went wrong: the first one
 * with "error:" (gcc, clang, nvcc), else the last non-empty one.
 */
static void compiler_line(char *buf, size_t size, const char *text)
{
    const char *hit = strstr(text, "error:"), *start;

    if (!hit) {
        rpl_spawn_last_line(buf, size, text);
        return;
    }
    for (start = hit; start > text && start[-1] != '\n'; start--)
        ;
    snprintf(buf, size, "%.*s", (int)strcspn(start, "\n"), start);
}

/* Config c's command, naming its built program. */
static int expand_command(tuner *t, size_t c)
{
    double vals[RPL_TUNE_MAX_PARAMS];
    tune_text text[RPL_TUNE_MAX_PARAMS];
    const char *vp[RPL_TUNE_MAX_PARAMS + 1];
    rpl_tune_config *cfg = &t->r->configs[c];

    if (cfg->status == RPL_TUNE_BUILD_FAILED)
        return 0;
    tune_values(t, c, vals, text, vp, cfg->binary ? cfg->binary : "");
    return rpl_template_expand(&t->argv[c], t->cmd, t->names, vp, t->nnames);
}

/* Build one group in its folder below the work folder. */
static int build_group(tuner *t, group *g, size_t index)
{
    double vals[RPL_TUNE_MAX_PARAMS];
    tune_text text[RPL_TUNE_MAX_PARAMS];
    const char *vp[RPL_TUNE_MAX_PARAMS + 1];
    rpl_spawn_opts so = {0};
    rpl_spawn_result res = {0};
    char **argv = NULL, dir[64], line[240], sha[65], code[65], inputs[65], *msg = NULL;
    const char *kind = NULL;
    char *path = NULL;
    struct stat st;
    int rc;

    snprintf(dir, sizeof(dir), "build-%zu", index);
    if ((rc = rpl_path_join(&path, t->work_dir, dir)) != 0 || (rc = rpl_mkdir_p(path)) != 0 ||
        (rc = rpl_path_join(&g->out, path, "prog")) != 0)
        goto out;
    tune_values(t, g->cfgs[0], vals, text, vp, g->out);
    if ((rc = rpl_template_expand(&argv, t->build, t->names, vp, t->nnames)) != 0)
        goto out;
    so.argv = (const char *const *)argv;
    so.timeout_ms = t->o->timeout_ms;
    so.capture_stdout = so.capture_stderr = true;
    so.capture_limit = BUILD_CAPTURE;
    rc = rpl_spawn_run(&res, &so);
    if (rc == RPL_ENOTFOUND) {
        /* No compiler is no config's fault: the environment lacks it. */
        char why[512];
        snprintf(why, sizeof(why), "%s", rpl_error_last()->message);
        rc = rpl_error_set(RPL_EENV, "--build-template: %s", why);
    } else if (rc == RPL_ETIMEOUT) {
        msg = strdup(rpl_error_last()->message);
        rc = 0;
    } else if (rc == 0 && !(res.exited && res.exit_code == 0)) {
        char buf[400];
        const char *err = res.err && res.err[0] ? res.err : res.out;
        line[0] = '\0';
        if (err)
            compiler_line(line, sizeof(line), err);
        if (res.exited)
            snprintf(buf, sizeof(buf), "the build exited with status %d%s%s", res.exit_code,
                     line[0] ? ": " : "", line);
        else
            snprintf(buf, sizeof(buf), "the build was killed by signal %d", res.term_signal);
        msg = strdup(buf);
    } else if (rc == 0 && stat(g->out, &st) != 0) {
        msg = strdup("the build succeeded but wrote no {OUT} (does the template use {OUT}?)");
    }
    if (rc != 0)
        goto out;
    if (msg) {
        for (size_t i = 0; i < g->n; i++)
            set_failed(&t->r->configs[g->cfgs[i]], RPL_TUNE_BUILD_FAILED, msg);
        goto out;
    }
    /* The program's own digest changes with every build (nvcc and hipcc embed temporary
     * names); the cache keys on its GPU code and the build's inputs instead. */
    if ((rc = rpl_sha256_file(sha, g->out)) != 0 ||
        (rc = rpl_tune_code_digest(code, &kind, g->out)) != 0 ||
        (rc = rpl_tune_inputs_digest(inputs, (const char *const *)t->bargv[g->cfgs[0]])) != 0)
        goto out;
    for (size_t i = 0; i < g->n && rc == 0; i++) {
        rpl_tune_config *c = &t->r->configs[g->cfgs[i]];
        c->code_kind = kind;
        if (!(c->binary = strdup(g->out)) || !(c->binary_sha256 = strdup(sha)) ||
            !(c->code_sha256 = strdup(code)) || !(c->inputs_sha256 = strdup(inputs)))
            rc = rpl_error_oom();
    }
    if (rc == 0)
        rc = group_features(t, g);
    for (size_t i = 0; i < g->n && rc == 0; i++)
        rc = expand_command(t, g->cfgs[i]);
out:
    rpl_spawn_result_release(&res);
    rpl_argv_free(argv);
    free(path);
    free(msg);
    return rc;
}

/* Lower this thread's priority, and so its builds' (Linux: niceness is per thread). */
static void go_background(void)
{
    pid_t tid = (pid_t)syscall(SYS_gettid);
    int cur;

    errno = 0;
    cur = getpriority(PRIO_PROCESS, (id_t)tid);
    if (errno == 0)
        (void)setpriority(PRIO_PROCESS, (id_t)tid, cur + BACKGROUND_NICE);
}

static void *build_worker(void *arg)
{
    tune_builds *b = arg;
    tuner *t = b->t;
    bool background = false;

    for (;;) {
        size_t i = SIZE_MAX;
        bool urgent = false;
        int rc;
        pthread_mutex_lock(&t->lock);
        if (!t->fatal && !b->stop && b->next < b->ngroups) {
            i = b->queue[b->next++];
            urgent = b->groups[i].urgent;
        }
        pthread_mutex_unlock(&t->lock);
        if (i == SIZE_MAX)
            break;
        if (!urgent && !background) {
            go_background();
            background = true;
        }
        rc = build_group(t, &b->groups[i], i);
        pthread_mutex_lock(&t->lock);
        if (rc != 0 && !t->fatal) {
            t->fatal = rc;
            t->fatal_msg = strdup(rpl_error_last()->message);
        }
        b->groups[i].done = true;
        b->last_end = rpl_clock_mono_s();
        rpl_progress_update(b->progress, ++b->done);
        pthread_cond_broadcast(&b->changed);
        pthread_mutex_unlock(&t->lock);
    }
    /* Nothing more will finish: wake a waiter that would wait for a group never built. */
    pthread_mutex_lock(&t->lock);
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

typedef struct keyed {
    const char *key;
    size_t cfg;
} keyed;

/* By build argv, then by config index, so each group lists its configs in order. */
static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);

    return c ? c : (x->cfg > y->cfg) - (x->cfg < y->cfg);
}

/* Group the configs by their build argv. */
static int make_groups(tune_builds *b, char **keys, size_t n)
{
    keyed *order = malloc(n * sizeof(*order));

    if (!order)
        return rpl_error_oom();
    for (size_t i = 0; i < n; i++)
        order[i] = (keyed){keys[i], i};
    qsort(order, n, sizeof(*order), by_key);
    b->groups = calloc(n, sizeof(*b->groups));
    if (!b->groups) {
        free(order);
        return rpl_error_oom();
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        group *g = &b->groups[b->ngroups++];
        while (j < n && strcmp(order[j].key, order[i].key) == 0)
            j++;
        if (!(g->cfgs = malloc((j - i) * sizeof(*g->cfgs)))) {
            free(order);
            return rpl_error_oom();
        }
        for (size_t k = i; k < j; k++) {
            g->cfgs[g->n++] = order[k].cfg;
            b->group_of[order[k].cfg] = b->ngroups - 1;
        }
        i = j;
    }
    free(order);
    return 0;
}

/* Start the build threads; the groups of `first` go first (NULL: the search waits for all). */
static int start_threads(tuner *t, tune_builds *b, const size_t *first, size_t nfirst)
{
    unsigned n = t->o->build_jobs ? t->o->build_jobs : 1;
    size_t k = 0;

    for (size_t i = 0; i < nfirst; i++) {
        group *g = &b->groups[b->group_of[first[i]]];
        if (!g->urgent) {
            g->urgent = true;
            b->queue[k++] = b->group_of[first[i]];
        }
    }
    for (size_t i = 0; i < b->ngroups; i++) {
        if (!b->groups[i].urgent)
            b->queue[k++] = i;
        /* Without a first few, the search waits for every build: none runs niced. */
        b->groups[i].urgent = b->groups[i].urgent || !first;
    }
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    if (n > b->ngroups)
        n = (unsigned)b->ngroups;
    b->t0 = b->last_end = rpl_clock_mono_s();
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&b->th[i], NULL, build_worker, b) != 0)
            break;
        b->nthreads++;
    }
    if (b->nthreads == 0 && b->ngroups > 0)
        return rpl_error_set(RPL_ERROR, "cannot start a build thread");
    return 0;
}

int tune_build_start(tuner *t, tune_builds **out, const size_t *first, size_t nfirst)
{
    size_t n = t->s->nconfigs;
    double vals[RPL_TUNE_MAX_PARAMS];
    tune_text text[RPL_TUNE_MAX_PARAMS];
    const char *vp[RPL_TUNE_MAX_PARAMS + 1];
    char **keys = NULL;
    tune_builds *b;
    int rc = 0;

    *out = NULL;
    if (!(b = calloc(1, sizeof(*b))))
        return rpl_error_oom();
    b->t = t;
    pthread_cond_init(&b->changed, NULL);
    *out = b;
    if (!t->build) {
        for (size_t c = 0; c < n && rc == 0; c++)
            rc = expand_command(t, c);
        return rc;
    }
    if (!(keys = calloc(n, sizeof(*keys))) || !(b->group_of = calloc(n, sizeof(*b->group_of))) ||
        !(b->queue = calloc(n, sizeof(*b->queue)))) {
        free(keys);
        return rpl_error_oom();
    }
    for (size_t c = 0; c < n && rc == 0; c++) {
        tune_values(t, c, vals, text, vp, "{OUT}");
        rc = rpl_template_expand(&t->bargv[c], t->build, t->names, vp, t->nnames);
        if (rc == 0)
            rc = join_words(&keys[c], t->bargv[c]);
    }
    if (rc == 0)
        rc = make_groups(b, keys, n);
    t->r->builds = b->ngroups;
    rpl_free_strings(keys, n);
    if (rc == 0) {
        b->progress = rpl_progress_start("autotune: building", b->ngroups);
        rc = start_threads(t, b, first, nfirst);
    }
    return rc;
}

/* The build error that ends the search, if one happened (with t->lock held). */
static int fatal_error(tuner *t)
{
    return t->fatal ? rpl_error_set(t->fatal, "%s", t->fatal_msg ? t->fatal_msg : "build failed")
                    : 0;
}

int tune_build_wait(tuner *t, tune_builds *b, const size_t *cfgs, size_t n)
{
    int rc;

    if (!t->build)
        return 0;
    pthread_mutex_lock(&t->lock);
    /* Groups not started yet move to the front of the queue. */
    for (size_t i = 0; i < n; i++) {
        size_t gi = b->group_of[cfgs[i]];
        b->groups[gi].urgent = true;
        for (size_t q = b->next; q < b->ngroups; q++) {
            if (b->queue[q] != gi)
                continue;
            memmove(b->queue + b->next + 1, b->queue + b->next, (q - b->next) * sizeof(*b->queue));
            b->queue[b->next] = gi;
            break;
        }
    }
    for (;;) {
        size_t i = 0;
        while (i < n && b->groups[b->group_of[cfgs[i]]].done)
            i++;
        if (i == n || t->fatal || b->done == b->ngroups)
            break;
        pthread_cond_wait(&b->changed, &t->lock);
    }
    rc = fatal_error(t);
    /* The rest builds in the background, without a progress bar beside the measurements'. */
    rpl_progress_finish(b->progress);
    b->progress = NULL;
    pthread_mutex_unlock(&t->lock);
    return rc;
}

int tune_build_finish(tuner *t, tune_builds *b, double measure_start)
{
    int rc;

    if (!b)
        return 0;
    for (unsigned i = 0; i < b->nthreads; i++)
        pthread_join(b->th[i], NULL);
    b->nthreads = 0;
    rpl_progress_finish(b->progress);
    b->progress = NULL;
    if (t->build) {
        t->r->build_s = b->last_end - b->t0;
        if (measure_start > 0 && b->last_end > measure_start)
            t->r->build_overlap_s = b->last_end - measure_start;
    }
    pthread_mutex_lock(&t->lock);
    rc = fatal_error(t);
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void tune_build_free(tune_builds *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->t->lock);
    b->stop = true;
    pthread_mutex_unlock(&b->t->lock);
    for (unsigned i = 0; i < b->nthreads; i++)
        pthread_join(b->th[i], NULL);
    rpl_progress_finish(b->progress);
    for (size_t g = 0; g < b->ngroups; g++) {
        free(b->groups[g].cfgs);
        free(b->groups[g].out);
    }
    RPL_FREE_EACH(b->groups, b->queue, b->group_of);
    pthread_cond_destroy(&b->changed);
    free(b);
}

/* argv[0] as posix_spawnp finds it: a path with '/', else the first PATH entry that runs. */
int tune_command_digest(tuner *t)
{
    const char *prog = t->cmd->words[0], *path = getenv("PATH");
    char sha[65];
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = RPL_ENOTFOUND;

    if (strchr(prog, '{'))
        return 0; /* the program itself is a parameter: no one digest */
    if (strchr(prog, '/')) {
        rc = rpl_sha256_file(sha, prog);
    } else {
        for (const char *p = path ? path : ""; *p && rc != 0;) {
            size_t len = strcspn(p, ":");
            rpl_strbuf_reset(&sb);
            if (rpl_strbuf_printf(&sb, "%.*s/%s", (int)len, p, prog) != 0) {
                rpl_strbuf_release(&sb);
                return rpl_error_oom();
            }
            if (len && access(sb.ptr, X_OK) == 0)
                rc = rpl_sha256_file(sha, sb.ptr);
            p += len + (p[len] == ':');
        }
    }
    rpl_strbuf_release(&sb);
    if (rc != 0) {
        /* Not readable here (a launcher may run it elsewhere): keyed by name only. */
        rpl_error_clear();
        return 0;
    }
    return (t->cmd_sha = strdup(sha)) ? 0 : rpl_error_oom();
}
