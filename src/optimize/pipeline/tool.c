/*
 * The pipeline's rocm-perf children: capture of the original's snapshot,
 * replays (checked, timed), and a profile of the whole program.  Each runs
 * as a separate process with a time limit; their JSON output is read back.
 */
#include <dirent.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe_int.h"
#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/sha256.h"

/* tool WORDS... [-- program args] as one argv. */
static int tool_argv(char ***out, const rpl_pipe *p, const char *const *words, const char *program)
{
    const char *vars[4] = {NULL, program, NULL, NULL};
    char **argv = NULL, **app = NULL;
    size_t n = 0;
    int rc = pipe_argv_push(&argv, &n, p->tool);

    for (size_t i = 0; rc == 0 && words[i]; i++)
        rc = pipe_argv_push(&argv, &n, words[i]);
    if (rc == 0 && program) {
        rc = pipe_argv_push(&argv, &n, "--");
        if (rc == 0)
            rc = pipe_argv_expand(&app, (const char *const *)p->target->test_argv, vars);
        for (size_t i = 0; rc == 0 && app[i]; i++)
            rc = pipe_argv_push(&argv, &n, app[i]);
    }
    pipe_argv_free(app);
    if (rc) {
        pipe_argv_free(argv);
        return rc;
    }
    *out = argv;
    return 0;
}

/* A child's failure as an error of the run: the environment (3), no GPU (77), else `code`. */
static int child_error(const rpl_spawn_result *res, const char *what, int code)
{
    const char *line = pipe_last_line(res->err && res->err[0] ? res->err : res->out);

    if (res->timed_out)
        return rpl_error_set(RPL_ETIMEOUT, "%s ran past its time limit", what);
    if (!res->exited)
        return rpl_error_set(code, "%s was killed by signal %d", what, res->term_signal);
    if (res->exit_code == 3)
        code = RPL_EENV;
    else if (res->exit_code == 77)
        code = RPL_ENODEV;
    return rpl_error_set(code, "%s failed (exit status %d)%s%s", what, res->exit_code,
                         line[0] ? ": " : "", line);
}

/* "(^|:)name(\(|$)" with the name's regex characters escaped. */
int pipe_kernel_regex(char **out, const char *name)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    /* A demangled template instantiation starts with its return type ("void k<16u>(...)"),
       and a template's bare name matches any instantiation of it. */
    int rc = rpl_strbuf_puts(&sb, "(^|[ :])");

    for (const char *s = name; rc == 0 && *s; s++) {
        if (strchr(".[]{}()\\*+?^$|", *s))
            rc = rpl_strbuf_putc(&sb, '\\');
        if (rc == 0)
            rc = rpl_strbuf_putc(&sb, *s);
    }
    if (rc == 0 && !strchr(name, '<') && strncmp(name, "_Z", 2) != 0)
        rc = rpl_strbuf_puts(&sb, "(<.*>)?");
    if (rc == 0)
        rc = rpl_strbuf_puts(&sb, "(\\(|$)");
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

/* Collect the snapshot's files, relative paths, sorted. */
static int list_files(char ***names, size_t *n, const char *root, const char *rel)
{
    char *dir = NULL;
    struct dirent *e;
    DIR *d;
    int rc = pipe_set(&dir, "%s%s%s", root, rel[0] ? "/" : "", rel);

    if (rc)
        return rc;
    if (!(d = opendir(dir))) {
        rc = rpl_error_set(RPL_EIO, "cannot read '%s'", dir);
        free(dir);
        return rc;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char *sub = NULL, *full = NULL;
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if ((rc = pipe_set(&sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name)) == 0 &&
            (rc = pipe_set(&full, "%s/%s", root, sub)) == 0 && lstat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                rc = list_files(names, n, root, sub);
            else if (S_ISREG(st.st_mode))
                rc = pipe_argv_push(names, n, sub);
        }
        free(sub);
        free(full);
    }
    closedir(d);
    free(dir);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* <snapshot>.manifest in sha256sum's format, and the digest of that file. */
static int manifest(pipe_kernel *k)
{
    char **names = NULL, *path = NULL, hex[65];
    rpl_strbuf text = RPL_STRBUF_INIT;
    size_t n = 0;
    int rc = list_files(&names, &n, k->snapshot, "");

    if (rc == 0 && n)
        qsort(names, n, sizeof(char *), cmp_str);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *full = NULL;
        if ((rc = pipe_set(&full, "%s/%s", k->snapshot, names[i])) == 0 &&
            (rc = rpl_sha256_file(hex, full)) == 0)
            rc = rpl_strbuf_printf(&text, "%s  %s\n", hex, names[i]);
        free(full);
    }
    if (rc == 0 && (rc = pipe_set(&path, "%s.manifest", k->snapshot)) == 0 &&
        (rc = rpl_file_write_atomic(path, text.ptr ? text.ptr : "", text.len)) == 0 &&
        (rc = rpl_sha256_file(hex, path)) == 0)
        rc = pipe_set(&k->digest, "sha256:%s", hex);
    pipe_argv_free(names);
    rpl_strbuf_release(&text);
    free(path);
    return rc;
}

/* What the pipeline needs of dispatch.json: architecture, symbol and its demangled name, block
   size. */
static int read_dispatch(pipe_kernel *k)
{
    const cJSON *kern, *launch, *block;
    const char *arch = NULL, *mangled = NULL, *demangled = NULL;
    char *path = NULL;
    cJSON *doc = NULL;
    int rc = pipe_set(&path, "%s/dispatch.json", k->snapshot);

    if (rc == 0 && (rc = rpl_json_parse_file(&doc, path, 16u << 20)) == 0) {
        kern = cJSON_GetObjectItemCaseSensitive(doc, "kernel");
        if (rpl_json_get_string(doc, "arch", &arch) ||
            rpl_json_get_string(kern, "mangled_name", &mangled))
            rc = rpl_error_set(RPL_EINPUT, "%s: no arch or kernel.mangled_name", path);
        else if ((rc = pipe_set(&k->arch, "%s", arch)) == 0 && !k->mangled[0])
            rc = pipe_set(&k->mangled, "%s", mangled);
        if (rc == 0 && rpl_json_get_string(kern, "demangled_name", &demangled) == 0)
            rc = pipe_set(&k->demangled, "%s", demangled);
        launch = cJSON_GetObjectItemCaseSensitive(doc, "launch");
        block = cJSON_GetObjectItemCaseSensitive(launch, "block");
        k->block = 1;
        for (int i = 0; i < 3; i++) {
            const cJSON *v = cJSON_GetArrayItem(block, i);
            k->block = cJSON_IsNumber(v) && v->valuedouble >= 1
                           ? k->block * (unsigned)v->valuedouble
                           : (i ? k->block : 0);
        }
    }
    cJSON_Delete(doc);
    free(path);
    return rc;
}

/* capture --kernel RE [--dispatch N] --out DIR -- the original program. */
static int capture_run(rpl_pipe *p, const pipe_kernel *k, unsigned dispatch, const char *dir,
                       rpl_spawn_result *res)
{
    char *regex = NULL, **argv = NULL, nth[16];
    int rc;

    snprintf(nth, sizeof(nth), "%u", dispatch);
    if ((rc = pipe_kernel_regex(&regex, k->display)) == 0) {
        const char *words[9];
        size_t w = 0;
        words[w++] = "capture";
        words[w++] = "--kernel";
        words[w++] = regex;
        if (dispatch) {
            words[w++] = "--dispatch";
            words[w++] = nth;
        }
        words[w++] = "--out";
        words[w++] = dir;
        words[w] = NULL;
        rc = tool_argv(&argv, p, words, p->orig.program);
    }
    if (rc == 0)
        rc = pipe_run(res, (const char *const *)argv, NULL, p->opts.run_timeout_ms, NULL);
    if (rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_EENV, "cannot run '%s'", p->tool);
    pipe_argv_free(argv);
    free(regex);
    return rc;
}

int pipe_capture(rpl_pipe *p, pipe_kernel *k)
{
    char *dir = NULL;
    rpl_spawn_result res = {0};
    int rc;

    if ((rc = pipe_set(&dir, "%s/snapshots", p->artifacts)) != 0 || (rc = rpl_mkdir_p(dir)) != 0)
        goto done;
    /* An artifacts directory used before: its snapshot of this kernel is replaced. */
    if (access(k->snapshot, F_OK) == 0 && (rc = rpl_remove_tree(k->snapshot)) != 0)
        goto done;
    pipe_progress(p, NULL, RPL_PIPE_STEP_REPLAY, "capturing the snapshot of %s", k->display);
    rc = capture_run(p, k, 0, k->snapshot, &res);
    if (rc == 0 && (!res.exited || res.exit_code != 0))
        rc = child_error(&res, "capturing the original's snapshot", RPL_EINPUT);
    else if (rc == RPL_ETIMEOUT)
        rc = child_error(&res, "capturing the original's snapshot", RPL_ETIMEOUT);
    if (rc == 0 && (rc = read_dispatch(k)) == 0)
        rc = manifest(k);
done:
    rpl_spawn_result_release(&res);
    free(dir);
    return rc;
}

int pipe_capture_dispatch(rpl_pipe *p, const pipe_kernel *k, unsigned dispatch, const char *dir)
{
    rpl_spawn_result res = {0};
    int rc;

    if (access(dir, F_OK) == 0 && (rc = rpl_remove_tree(dir)) != 0)
        return rc;
    rc = capture_run(p, k, dispatch, dir, &res);
    /* Exit 2 after the program ran: fewer dispatches than asked for (or none left). */
    if (rc == 0 && res.exited && res.exit_code == 2)
        rc = RPL_ENOTFOUND;
    else if (rc == 0 && (!res.exited || res.exit_code != 0))
        rc = child_error(&res, "capturing another dispatch", RPL_EINPUT);
    else if (rc == RPL_ETIMEOUT)
        rc = child_error(&res, "capturing another dispatch", RPL_ETIMEOUT);
    rpl_spawn_result_release(&res);
    if (rc == RPL_ENOTFOUND)
        rpl_remove_tree(dir);
    return rc;
}

#define REPLAY_TIMER_ENV "ROCM_PERF_REPLAY_TIMER"

int pipe_counter_pass(rpl_pipe *p, const pipe_kernel *k, const char *co, const char *dir,
                      char **why)
{
    char launches[16], **argv = NULL;
    rpl_spawn_result res = {0};
    size_t n = 0;
    int rc;

    *why = NULL;
    snprintf(launches, sizeof(launches), "%u", RPL_PIPE_COUNTER_LAUNCHES);
    {
        /* ATT (thread trace) where the platform has it: AMD. */
        const char *words[] = {"profile",
                               "--quiet",
                               "--out",
                               dir,
                               strncmp(k->arch, "gfx", 3) == 0 ? "--att" : "--",
                               "--",
                               p->tool,
                               "replay",
                               "full-vm",
                               k->snapshot,
                               "--code-object",
                               co,
                               "--iterations",
                               launches,
                               NULL};
        rc = pipe_argv_push(&argv, &n, p->tool);
        for (size_t i = 0; rc == 0 && words[i]; i++)
            if (i != 5 || strcmp(words[4], "--") != 0) /* one "--" only */
                rc = pipe_argv_push(&argv, &n, words[i]);
    }
    if (rc == 0 && access(dir, F_OK) == 0)
        rc = rpl_remove_tree(dir);
    if (rc == 0) {
        /* The replay times with CUPTI by default, which the profiler's own CUPTI subscriber
           holds: CUDA events for this one child. */
        const char *was = getenv(REPLAY_TIMER_ENV);
        char *saved = was ? strdup(was) : NULL;
        if (was && !saved)
            rc = rpl_error_oom();
        if (rc == 0 && setenv(REPLAY_TIMER_ENV, "event", 1) != 0)
            rc = rpl_error_oom();
        if (rc == 0)
            rc = pipe_run(&res, (const char *const *)argv, NULL, p->opts.run_timeout_ms, NULL);
        if (saved)
            setenv(REPLAY_TIMER_ENV, saved, 1);
        else
            unsetenv(REPLAY_TIMER_ENV);
        free(saved);
    }
    if (rc == RPL_ENOTFOUND || rc == RPL_ETIMEOUT || (rc == 0 && (!res.exited || res.exit_code))) {
        const char *line = pipe_last_line(res.err && res.err[0] ? res.err : res.out);
        rc = pipe_set(why, "the counter pass (`rocm-perf profile` over the replay) %s%s%s",
                      res.timed_out         ? "ran past its time limit"
                      : rc == RPL_ENOTFOUND ? "could not be started"
                                            : "failed",
                      line[0] ? ": " : "", line);
        rpl_error_clear();
    }
    rpl_spawn_result_release(&res);
    pipe_argv_free(argv);
    return rc;
}

int pipe_replay(rpl_pipe *p, const pipe_kernel *k, const char *co, bool check, unsigned iterations,
                cJSON **out, pipe_replay_failure *failure)
{
    char iters[16], rtol[32], atol[32], **argv = NULL;
    const char *words[20];
    rpl_spawn_result res = {0};
    size_t n = 0;
    int rc;

    *out = NULL;
    *failure = (pipe_replay_failure){PIPE_REPLAY_RAN, NULL};
    snprintf(iters, sizeof(iters), "%u", iterations);
    words[n++] = "replay";
    words[n++] = "full-vm";
    words[n++] = k->snapshot;
    words[n++] = "--code-object";
    words[n++] = co;
    words[n++] = "--json";
    words[n++] = "--iterations";
    words[n++] = iters;
    if (check) {
        words[n++] = "--check-runs";
        words[n++] = "2";
        words[n++] = "--poison";
        if (p->opts.have_tolerance) {
            snprintf(rtol, sizeof(rtol), "%.17g", p->opts.rtol);
            snprintf(atol, sizeof(atol), "%.17g", p->opts.atol);
            words[n++] = "--rtol";
            words[n++] = rtol;
            words[n++] = "--atol";
            words[n++] = atol;
        }
    } else {
        words[n++] = "--warmup";
        words[n++] = "2";
    }
    words[n] = NULL;
    if ((rc = tool_argv(&argv, p, words, NULL)) != 0)
        return rc;
    rc = pipe_run(&res, (const char *const *)argv, NULL, p->opts.run_timeout_ms, NULL);
    pipe_argv_free(argv);
    if (rc == RPL_ENOTFOUND) {
        rc = rpl_error_set(RPL_EENV, "cannot run '%s'", p->tool);
    } else if (rc == 0 && res.exited && (res.exit_code == 0 || res.exit_code == 1) &&
               rpl_json_parse(out, res.out, res.out_len, "the replay's JSON") == 0) {
        rc = 0;
    } else if (rc == RPL_ETIMEOUT || (rc == 0 && !res.exited)) {
        /* A candidate that hangs or crashes the replay is a wrong result, not a broken run. */
        failure->end = res.timed_out ? PIPE_REPLAY_TIMEOUT : PIPE_REPLAY_CRASHED;
        rc = pipe_set(&failure->evidence, "the replay %s",
                      res.timed_out ? "ran past its time limit (a hang?)"
                                    : "was killed by a signal");
    } else if (rc == 0 && res.exit_code == 2) {
        failure->end = PIPE_REPLAY_REFUSED;
        rc = pipe_set(&failure->evidence, "replay refused the code object: %s",
                      pipe_last_line(res.err));
    } else if (rc == 0 && res.exit_code != 3 && res.exit_code != 77) {
        failure->end = PIPE_REPLAY_FAILED;
        rc = pipe_set(&failure->evidence, "the replay failed (exit status %d): %s", res.exit_code,
                      pipe_last_line(res.err));
    } else if (rc == 0) {
        rc = child_error(&res, "the replay", RPL_EENV);
    }
    rpl_spawn_result_release(&res);
    return rc;
}

int pipe_profile_app(rpl_pipe *p, const char *program, const char *dir, cJSON **dag)
{
    const char *words[] = {"profile", "--counters", "none", "--quiet", "--out", dir, NULL};
    char **argv = NULL, *path = NULL;
    rpl_spawn_result res = {0};
    int rc;

    *dag = NULL;
    if ((rc = tool_argv(&argv, p, words, program)) != 0)
        return rc;
    rc = pipe_run(&res, (const char *const *)argv, NULL, p->opts.run_timeout_ms, NULL);
    pipe_argv_free(argv);
    if (rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_EENV, "cannot run '%s'", p->tool);
    else if ((rc == 0 || rc == RPL_ETIMEOUT) && (!res.exited || res.exit_code != 0))
        rc = child_error(&res, "profiling the program", RPL_ERROR);
    if (rc == 0 && (rc = pipe_set(&path, "%s/dag.json", dir)) == 0)
        rc = rpl_json_parse_file(dag, path, 256u << 20);
    rpl_spawn_result_release(&res);
    free(path);
    return rc;
}
