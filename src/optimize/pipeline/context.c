/*
 * The pipeline's context: the repository, the original built once in a
 * scratch tree and profiled once, each kernel's snapshot captured once
 * (rpl/pipeline.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pipe_int.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"

/* Whether `prog` is an executable file in a PATH directory. */
static bool in_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];

    for (const char *p = path ? path : ""; p && *p;) {
        const char *end = strchr(p, ':');
        int len = end ? (int)(end - p) : (int)strlen(p);
        snprintf(buf, sizeof(buf), "%.*s/%s", len, p, prog);
        if (len && access(buf, X_OK) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

/* hipcc, or nvcc for a .cu file or where only nvcc is installed. */
static const char *pick_compiler(const char *source)
{
    const char *dot = strrchr(source, '.');
    bool cu = dot && (strcmp(dot, ".cu") == 0 || strcmp(dot, ".cuh") == 0);

    if (cu && in_path("nvcc"))
        return "nvcc";
    if (in_path("hipcc"))
        return "hipcc";
    return in_path("nvcc") ? "nvcc" : "hipcc";
}

/*
 * <build dir or .>/rocm-perf-optimize/<target>-<UTC>.  The folder holds a
 * .gitignore of "*", as pytest and ruff do with their caches, so that a run
 * in a work tree does not show in `git status`.
 */
static int default_artifacts(char **out, const rpl_pipe_target *t)
{
    static const char ignore_all[] = "# rocm-perf optimize artifacts: not for git\n*\n";
    char stamp[32], *dir = NULL, *ignore = NULL;
    time_t now = time(NULL);
    struct tm tm;
    int rc;

    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    if ((rc = pipe_set(&dir, "%s/rocm-perf-optimize", t->build_dir ? t->build_dir : ".")) ||
        (rc = pipe_set(&ignore, "%s/.gitignore", dir)) || (rc = rpl_mkdir_p(dir)))
        goto done;
    if (access(ignore, F_OK) != 0 &&
        (rc = rpl_file_write_atomic(ignore, ignore_all, sizeof(ignore_all) - 1)) != 0)
        goto done;
    rc = pipe_set(out, "%s/%s-%s", dir, t->name, stamp);
done:
    free(dir);
    free(ignore);
    return rc;
}

/*
 * How libclang parses the source: as the build compiles it (the database's
 * command, the build command, or the default compiler's extra words), for
 * --arch, else the build's architecture, else the GPU's.
 */
static int parse_options(rpl_pipe *p)
{
    const rpl_pipe_target *t = p->target;
    size_t root_len = strlen(t->source) - strlen(p->relpath);
    rpl_gpu_probe probe;
    char *slash, *root;
    int rc = 0;

    if (rpl_gpu_probe_run(&probe, NULL) == 0) {
        snprintf(p->gpu_arch, sizeof(p->gpu_arch), "%s",
                 probe.nvidia_arch[0] ? probe.nvidia_arch : probe.amd_arch);
        p->ks.gpu_arch = p->gpu_arch[0] ? p->gpu_arch : NULL;
    }
    p->ks.arch = p->opts.arch;
    /* The build command as it would run on the original: {dir} is the work tree's root. */
    if (!(root = strndup(t->source, root_len > 0 ? root_len - 1 : 0)))
        return rpl_error_oom();
    const char *vars[4] = {t->source, NULL, root, pipe_arch(p)};
    if (t->build_argv)
        rc = pipe_argv_expand(&p->ks_words, (const char *const *)t->build_argv, vars);
    free(root);
    if (rc)
        return rc;
    p->ks.compile_words = (const char *const *)(t->compile_words ? t->compile_words
                                                : p->ks_words    ? p->ks_words
                                                                 : t->cflags);
    if (t->compile_words)
        p->ks.compile_dir = t->compile_dir;
    else {
        if (!(p->ks_dir = strdup(t->source)))
            return rpl_error_oom();
        if ((slash = strrchr(p->ks_dir, '/')) != NULL)
            *slash = '\0';
        p->ks.compile_dir = p->ks_dir;
    }
    return 0;
}

const char *pipe_arch(const rpl_pipe *p)
{
    return p->opts.arch ? p->opts.arch : p->gpu_arch[0] ? p->gpu_arch : NULL;
}

/* A build command with {arch} needs an architecture before anything is built. */
static int check_build_arch(const rpl_pipe *p)
{
    for (size_t i = 0; p->target->build_argv && p->target->build_argv[i]; i++)
        if (strstr(p->target->build_argv[i], "{arch}") && !pipe_arch(p))
            return rpl_error_set(RPL_EINPUT, "the build command uses {arch}, but no --arch was "
                                             "given and no GPU was found to take it from");
    return 0;
}

int pipe_kernel_parsed(const rpl_pipe *p, const rpl_ks_kernel *k)
{
    const rpl_ks_diag *d = rpl_ks_kernel_error(p->orig_ks, k);

    if (!d)
        return 0;
    return rpl_error_set(RPL_EINPUT,
                         "%s:%u: %s (in kernel %s: its loops and signature are not "
                         "known for certain)",
                         d->file, d->line, d->message, k->qualified_name);
}

/*
 * The name the pipeline knows a kernel by: its qualified name, or for an
 * instantiation of a template kernel the instantiation as `name` gives it,
 * a symbol ("_Z8tiled_mmILj16EEvPKfS1_Pfj") or demangled without return type
 * and parameters ("tiled_mm<16u>").
 */
static int kernel_display(char **out, const rpl_ks_kernel *ks, const char *name)
{
    const char *at = ks->is_template ? strstr(name, ks->qualified_name) : NULL;

    if (ks->is_template && strncmp(name, "_Z", 2) == 0)
        return pipe_set(out, "%s", name);
    if (!at || at[strlen(ks->qualified_name)] != '<')
        return pipe_set(out, "%s", ks->qualified_name);
    return pipe_set(out, "%.*s", (int)strcspn(at, "("), at);
}

static int check_source_state(rpl_pipe *p)
{
    unsigned state = 0;
    int rc = rpl_git_file_status(p->repo, p->relpath, &state);

    if (rc)
        return rc;
    if (state & RPL_GIT_FILE_CONFLICTED)
        return rpl_error_set(RPL_EINPUT, "'%s' has an unresolved merge conflict", p->relpath);
    p->dirty = state != RPL_GIT_FILE_CLEAN;
    if (p->dirty && !p->opts.allow_dirty)
        return rpl_error_set(RPL_EINPUT,
                             "'%s' is %s: commit it first, or pass --allow-dirty to optimise "
                             "the working tree's version",
                             p->relpath, rpl_git_file_status_describe(state));
    return 0;
}

/*
 * Add the kernels of `syms` defined in the source with a share f > 0 to the
 * ranking, by 1/(1-f), highest first.  f is the kernel's share of the
 * critical path (path_fraction), or with `gpu_ns` > 0 its share total_ns /
 * gpu_ns of the GPU's busy time.
 */
static int rank_by(rpl_pipe *p, const cJSON *syms, double gpu_ns)
{
    const cJSON *s;
    int rc = 0;

    cJSON_ArrayForEach(s, syms)
    {
        const char *name = NULL, *kind = NULL;
        const rpl_ks_kernel *k = NULL;
        double f = 0, total = 0;
        bool helper = false;
        size_t at;
        /* dag.json's symbols: kind "kernel" or "copy" (docs/schemas/dag.schema.json). */
        if (rpl_json_get_string(s, "name", &name) || rpl_json_get_string(s, "kind", &kind) ||
            strcmp(kind, "kernel") != 0 || (rpl_json_get_bool(s, "helper", &helper) == 0 && helper))
            continue;
        if (gpu_ns > 0) {
            if (rpl_json_get_number(s, "total_ns", &total))
                continue;
            f = total / gpu_ns;
        } else if (rpl_json_get_number(s, "path_fraction", &f)) {
            continue;
        }
        if (!(f > 0))
            continue;
        /* The display name may carry a parameter list: "saxpy(unsigned long, ...)". */
        {
            char *plain = strndup(name, strcspn(name, "("));
            if (!plain)
                return rpl_error_oom();
            if (rpl_kernel_source_find(p->orig_ks, plain, &k) != 0)
                k = NULL;
            free(plain);
        }
        if (!k)
            continue;
        at = p->nranked;
        {
            char *display = NULL;
            if ((rc = kernel_display(&display, k, name)) == 0)
                rc = pipe_argv_push(&p->ranked, &p->nranked, display);
            free(display);
            if (rc)
                return rc;
        }
        double *grown = realloc(p->ceilings, p->nranked * sizeof(double));
        if (!grown)
            return rpl_error_oom();
        p->ceilings = grown;
        p->ceilings[at] = f >= 1 ? INFINITY : 1.0 / (1.0 - f);
        /* Keep them sorted, highest ceiling first (insertion: a handful of kernels). */
        for (size_t i = at; i > 0 && p->ceilings[i] > p->ceilings[i - 1]; i--) {
            double c = p->ceilings[i];
            char *n = p->ranked[i];
            p->ceilings[i] = p->ceilings[i - 1];
            p->ranked[i] = p->ranked[i - 1];
            p->ceilings[i - 1] = c;
            p->ranked[i - 1] = n;
        }
    }
    return 0;
}

/*
 * Rank the profiled kernels defined in the source by critical-path impact;
 * when none of them is on the critical path (copies or host work hold all
 * of it), by their share of GPU time, and say so.
 */
int pipe_rank(rpl_pipe *p, const cJSON *dag)
{
    const cJSON *syms = cJSON_GetObjectItemCaseSensitive(dag, "symbols"), *s;
    double cp = NAN, gpu_ns = 0;
    int rc;

    if (rpl_json_get_number(dag, "critical_path_ns", &cp) || !(cp >= 0))
        return rpl_error_set(RPL_EINPUT, "the profile's dag.json has no critical_path_ns");
    p->app_ns = cp;
    p->rank_basis = NULL;
    if ((rc = rank_by(p, syms, 0)) != 0)
        goto done;
    if (p->nranked) {
        p->rank_basis = "critical_path";
        goto done;
    }
    cJSON_ArrayForEach(s, syms)
    {
        double t = 0;
        if (rpl_json_get_number(s, "total_ns", &t) == 0 && t > 0)
            gpu_ns += t;
    }
    if (gpu_ns > 0 && (rc = rank_by(p, syms, gpu_ns)) == 0 && p->nranked) {
        p->rank_basis = "gpu_time";
        rpl_log_warn("no kernel of %s is on the application's critical path (copies or host "
                     "work hold all of it): kernels ranked by their share of GPU time instead",
                     p->relpath ? p->relpath : p->target->source);
    }
done:
    rpl_error_clear();
    return rc;
}

static int profile_original(rpl_pipe *p)
{
    char *dir = NULL;
    cJSON *dag = NULL;
    int rc;

    if (p->opts.skip_app)
        return 0;
    pipe_progress(p, NULL, RPL_PIPE_STEP_APP, "profiling the original program");
    if ((rc = pipe_set(&dir, "%s/profile-original", p->artifacts)) == 0 &&
        (rc = pipe_profile_app(p, p->orig.program, dir, &dag)) == 0)
        rc = pipe_rank(p, dag);
    cJSON_Delete(dag);
    free(dir);
    return rc;
}

static int build_original(rpl_pipe *p)
{
    char *log = NULL;
    bool failed = false;
    int rc;

    pipe_progress(p, NULL, RPL_PIPE_STEP_BUILD, "building the original");
    rc = pipe_build_make(p, &p->orig, p->orig_text, p->orig_len, &failed);
    if (rc == 0 && (rc = pipe_set(&log, "%s/original.build.log", p->artifacts)) == 0 && p->orig.log)
        rc = rpl_file_write_atomic(log, p->orig.log, strlen(p->orig.log));
    free(log);
    if (rc == 0 && failed)
        rc = rpl_error_set(RPL_EINPUT, "the original does not build (%s/original.build.log): %s",
                           p->artifacts, pipe_last_line(p->orig.log));
    return rc;
}

/* The source is a regular file: a folder or a FIFO would reach libgit2 and puzzle the user. */
static int check_source_file(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return errno == ENOENT
                   ? rpl_error_set(RPL_EINPUT, "the kernel source '%s' does not exist", path)
                   : rpl_error_set(RPL_EIO, "cannot read the kernel source '%s': %s", path,
                                   strerror(errno));
    if (S_ISDIR(st.st_mode))
        return rpl_error_set(RPL_EINPUT, "the kernel source '%s' is a directory, not a file", path);
    if (!S_ISREG(st.st_mode))
        return rpl_error_set(RPL_EINPUT, "the kernel source '%s' is not a regular file (%s)", path,
                             S_ISFIFO(st.st_mode)   ? "a FIFO"
                             : S_ISSOCK(st.st_mode) ? "a socket"
                                                    : "a device");
    return 0;
}

static int open_steps(rpl_pipe *p)
{
    rpl_git_commit_id head;
    char *real;
    int rc;

    if ((rc = check_source_file(p->target->source)) != 0 ||
        (rc = rpl_git_repo_open(&p->repo, p->target->source)) != 0 ||
        (rc = rpl_git_relpath(p->repo, p->target->source, &p->relpath)) != 0 ||
        (rc = check_source_state(p)) != 0 || (rc = rpl_git_commit_resolve(p->repo, NULL, &head)))
        return rc;
    memcpy(p->baseline, head.hex, sizeof(p->baseline));
    if ((rc = rpl_file_read_all(p->target->source, 16u << 20, &p->orig_text, &p->orig_len)) != 0)
        return rc;
    if ((rc = parse_options(p)) != 0 || (rc = check_build_arch(p)) != 0 ||
        (rc = rpl_kernel_source_parse_buffer(&p->orig_ks, p->target->source, p->orig_text,
                                             p->orig_len, &p->ks)) != 0)
        return rc;
    if (p->orig_ks->n_errors && p->orig_ks->mode != RPL_KS_MODE_CUDA_PRELUDE) {
        /* Without the vendor's headers installed, rocm-perf's prelude stands in for them. */
        rpl_kernel_source *again = NULL;
        p->ks.no_vendor_headers = true;
        if (rpl_kernel_source_parse_buffer(&again, p->target->source, p->orig_text, p->orig_len,
                                           &p->ks) == 0 &&
            again->n_errors == 0) {
            rpl_kernel_source_free(p->orig_ks);
            p->orig_ks = again;
        } else {
            rpl_kernel_source_free(again);
            p->ks.no_vendor_headers = false;
        }
        rpl_error_clear();
    }
    if (p->target->kernel) {
        const rpl_ks_kernel *k;
        if ((rc = rpl_kernel_source_find(p->orig_ks, p->target->kernel, &k)) != 0 ||
            (rc = pipe_kernel_parsed(p, k)) != 0)
            return rc;
    }
    if (p->orig_ks->n_errors) {
        const rpl_ks_diag *d = &p->orig_ks->diags[0];
        rpl_log_warn("%s: %zu parse error%s outside the kernel%s ignored (the first: %s:%u: %s)",
                     p->target->source, p->orig_ks->n_errors, p->orig_ks->n_errors == 1 ? "" : "s",
                     p->target->kernel ? "" : "s", d->file, d->line, d->message);
    }
    if (p->opts.artifacts)
        rc = pipe_set(&p->artifacts, "%s", p->opts.artifacts);
    else
        rc = default_artifacts(&p->artifacts, p->target);
    if (rc || (rc = rpl_mkdir_p(p->artifacts)) != 0)
        return rc;
    if (!(real = realpath(p->artifacts, NULL)))
        return rpl_error_set(RPL_EIO, "'%s': %s", p->artifacts, strerror(errno));
    free(p->artifacts);
    p->artifacts = real;
    if ((rc = rpl_scratch_default_parent(&p->scratch_parent, p->target->build_dir)) != 0)
        return rc;
    if (p->opts.tool)
        rc = pipe_set(&p->tool, "%s", p->opts.tool);
    else if (!(p->tool = realpath("/proc/self/exe", NULL)))
        rc = rpl_error_set(RPL_EENV, "cannot find this program: %s", strerror(errno));
    if (rc || (rc = pipe_set(&p->compiler, "%s", pick_compiler(p->target->source))) != 0)
        return rc;
    if ((rc = build_original(p)) != 0)
        return rc;
    return profile_original(p);
}

int rpl_pipe_open(rpl_pipe **out, const rpl_pipe_target *target, const rpl_pipe_opts *opts)
{
    rpl_pipe *p = calloc(1, sizeof(*p));
    int rc;

    *out = NULL;
    if (!p)
        return rpl_error_oom();
    p->target = target;
    if (opts)
        p->opts = *opts;
    else
        rpl_pipe_opts_init(&p->opts);
    p->app_ns = NAN;
    p->rng = p->opts.seed ? p->opts.seed : (unsigned long)time(NULL) ^ (unsigned long)getpid();
    p->opened_s = pipe_now();
    if ((rc = open_steps(p)) != 0) {
        rpl_pipe_close(p);
        return rc;
    }
    *out = p;
    return 0;
}

static pipe_kernel *kernel_entry(rpl_pipe *p, const char *name)
{
    for (size_t i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0 || strcmp(p->kernels[i].display, name) == 0)
            return &p->kernels[i];
    return NULL;
}

/* A file-name-safe form of a kernel name. */
static int safe_name(char **out, const char *name)
{
    if (pipe_set(out, "%s", name))
        return RPL_ENOMEM;
    for (char *s = *out; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            *s = '_';
    return 0;
}

/* Wave size of the kernel in the original's code object. */
static void read_wave_size(rpl_pipe *p, const pipe_kernel *k)
{
    rpl_codeobj_set *set = NULL;

    if (rpl_codeobj_set_new(&set) == 0 && rpl_codeobj_read_file(set, k->orig_co) == 0)
        for (size_t i = 0; i < set->count; i++)
            if (strcmp(set->kernels[i].name, k->mangled) == 0 && set->kernels[i].wavefront_size)
                p->wave_size = set->kernels[i].wavefront_size;
    rpl_codeobj_set_free(set);
    rpl_error_clear();
}

int pipe_kernel_get(rpl_pipe *p, const char *name, pipe_kernel **out)
{
    const rpl_ks_kernel *ks;
    pipe_kernel *k = kernel_entry(p, name), *grown;
    char *safe = NULL, *display = NULL;
    bool failed = false;
    int rc;

    if ((*out = k) != NULL)
        return 0;
    if ((rc = rpl_kernel_source_find(p->orig_ks, name, &ks)) != 0 ||
        (rc = pipe_kernel_parsed(p, ks)) != 0)
        return rc;
    if ((rc = kernel_display(&display, ks, name)) != 0)
        return rc;
    if ((k = kernel_entry(p, display)) != NULL) {
        free(display);
        *out = k;
        return 0;
    }
    if (!(grown = realloc(p->kernels, (p->nkernels + 1) * sizeof(*grown)))) {
        free(display);
        return rpl_error_oom();
    }
    p->kernels = grown;
    k = &p->kernels[p->nkernels++];
    memset(k, 0, sizeof(*k));
    k->display = display;
    display = NULL;
    if ((rc = pipe_set(&k->name, "%s", name)) ||
        (rc = pipe_set(&k->mangled, "%s",
                       ks->mangled                         ? ks->mangled
                       : strncmp(k->display, "_Z", 2) == 0 ? k->display
                                                           : "")) ||
        (rc = safe_name(&safe, k->display)) ||
        (rc = pipe_set(&k->snapshot, "%s/snapshots/%s", p->artifacts, safe)))
        goto fail;
    if ((rc = pipe_capture(p, k)) != 0)
        goto fail;
    if ((rc = pipe_set(&k->orig_co, "%s/rocm-perf-build/original-%s.co",
                       rpl_scratch_path(p->orig.scratch), safe)) ||
        (rc = pipe_build_codeobj(p, &p->orig, k, k->orig_co, &failed)))
        goto fail;
    if (failed) {
        rc = rpl_error_set(RPL_EINPUT, "the original's code object for %s does not build: %s",
                           k->arch, pipe_last_line(p->orig.log));
        goto fail;
    }
    read_wave_size(p, k);
    if ((rc = pipe_shapes_capture(p, k)) != 0 || (rc = pipe_kernel_measure(p, k)) != 0)
        goto fail;
    free(safe);
    *out = k;
    return 0;
fail:
    pipe_kernel_facts_release(k);
    free(safe);
    free(k->name);
    free(k->display);
    free(k->mangled);
    free(k->snapshot);
    free(k->arch);
    free(k->digest);
    free(k->orig_co);
    p->nkernels--;
    return rc;
}

int rpl_pipe_prepare(rpl_pipe *p, const char *kernel)
{
    pipe_kernel *k;

    return pipe_kernel_get(p, kernel, &k);
}

const char *rpl_pipe_rank_basis(const rpl_pipe *p)
{
    return p->rank_basis;
}

size_t rpl_pipe_ranked(const rpl_pipe *p, const char *const **names, const double **ceilings)
{
    if (names)
        *names = (const char *const *)p->ranked;
    if (ceilings)
        *ceilings = p->ceilings;
    return p->nranked;
}

const char *rpl_pipe_original_source(const rpl_pipe *p, size_t *len)
{
    if (len)
        *len = p->orig_len;
    return p->orig_text;
}

const struct rpl_kernel_source *rpl_pipe_original_parsed(const rpl_pipe *p)
{
    return p->orig_ks;
}

const char *rpl_pipe_source_relpath(const rpl_pipe *p)
{
    return p->relpath;
}

const char *rpl_pipe_baseline_commit(const rpl_pipe *p)
{
    return p->baseline;
}

const char *rpl_pipe_snapshot_digest(const rpl_pipe *p, const char *kernel)
{
    for (size_t i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i].name, kernel) == 0 || strcmp(p->kernels[i].display, kernel) == 0)
            return p->kernels[i].digest;
    return NULL;
}

const char *rpl_pipe_artifacts(const rpl_pipe *p)
{
    return p->artifacts;
}

unsigned rpl_pipe_wave_size(const rpl_pipe *p)
{
    return p->wave_size;
}

void pipe_outcome_free(rpl_pipe_outcome *o)
{
    if (!o)
        return;
    free(o->id);
    free(o->kernel);
    free(o->strategy);
    free(o->model);
    free(o->message);
    for (int i = 0; i < RPL_PIPE_STEPS; i++)
        free(o->steps[i].evidence);
    for (size_t i = 0; i < o->nmetrics; i++)
        free(o->metrics[i].name);
    free(o->metrics);
    free(o->correctness);
    free(o->source_path);
    free(o->build_log_path);
    free(o->code_object);
    free(o);
}

void rpl_pipe_close(rpl_pipe *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->noutcomes; i++) {
        pipe_outcome_free(p->outcomes[i]);
        free(p->commits[i]);
        pipe_build_release(&p->builds[i]);
    }
    free(p->outcomes);
    free(p->commits);
    free(p->builds);
    for (size_t i = 0; i < p->nkernels; i++) {
        pipe_kernel *k = &p->kernels[i];
        free(k->name);
        free(k->display);
        free(k->mangled);
        free(k->snapshot);
        free(k->arch);
        free(k->digest);
        free(k->orig_co);
        pipe_kernel_facts_release(k);
    }
    free(p->kernels);
    pipe_build_release(&p->orig);
    rpl_kernel_source_free(p->orig_ks);
    free(p->ks_dir);
    pipe_argv_free(p->ks_words);
    pipe_argv_free(p->ranked);
    free(p->ceilings);
    rpl_git_repo_free(p->repo);
    free(p->relpath);
    free(p->orig_text);
    free(p->artifacts);
    free(p->scratch_parent);
    free(p->tool);
    free(p->compiler);
    free(p);
}
