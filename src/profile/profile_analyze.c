/*
 * rpl_profile_analyze_run: what `rocm-perf profile` does once its options
 * are read: run the program under a profiler (or read what one left), write
 * the merged trace as OUT/profile.db and analyse it as `rocm-perf analyze
 * --out OUT` does; or run the program with no profiler and time it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl/analyze.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"
#include "rpl/rocpd.h"
#include "rpl/spawn.h"

/*
 * `rocm-perf analyze DB --out DIR [--kernel REGEX]` on the merged trace,
 * told which dispatches the counter run measured (`r` NULL: no profiler ran).
 */
static int analyze(const rpl_profile_analyze_opts *o, const char *db, const rpl_profile_result *r,
                   FILE *out)
{
    rpl_counter_sample sample = {0};
    rpl_analyze_opts a = {
        .traces = &db,
        .ntraces = 1,
        .out_dir = o->run.out_dir,
        .kernel_regex = o->run.kernel_regex,
        .json = o->json,
        .top = RPL_ANALYZE_DEFAULT_TOP,
    };

    if (r && r->counters && strcmp(r->counters, "none") != 0) {
        sample.skip = r->counter_skip;
        sample.per_kernel = r->counter_dispatches;
        sample.stopped_early = r->counter_stopped_early;
        a.sample = &sample;
    }
    return rpl_analyze_run(&a, out);
}

/*
 * The seed's `profile PROGRAM --no-rocprof`: run PROGRAM with no profiler
 * and say how long it took (host wall-clock: there are no kernel times).
 */
static int run_plain(const rpl_profile_analyze_opts *o, FILE *out)
{
    rpl_spawn_opts so = {.argv = o->run.app_argv};
    rpl_spawn_result res = {0};
    double t0 = rpl_clock_mono_s(), secs;
    int rc = rpl_spawn_run(&res, &so);

    secs = rpl_clock_mono_s() - t0;
    if (rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_EINPUT, "cannot run '%s'", o->run.app_argv[0]);
    else if (rc == 0 && !(res.exited && res.exit_code == 0))
        rc = res.exited
                 ? rpl_error_set(RPL_EENV, "the program exited with status %d", res.exit_code)
                 : rpl_error_set(RPL_EENV, "the program was killed by signal %d", res.term_signal);
    rpl_spawn_result_release(&res);
    if (rc == 0)
        fprintf(out,
                "%s ran in %.3f s without a profiler (--no-rocprof): host wall-clock time, no "
                "kernel data\n",
                o->run.app_argv[0], secs);
    return rc;
}

/* A counter run: say where its times and its counters come from. */
static void say_timing(const rpl_profile_analyze_opts *o, const rpl_profile_result *r, FILE *out)
{
    char line[1024], passes[64] = "the counter run"; /* CUPTI plans its passes itself */

    if (r->plan && r->plan->npasses)
        snprintf(passes, sizeof(passes), "%u counter pass%s", r->plan->npasses,
                 r->plan->npasses == 1 ? "" : "es");
    snprintf(line, sizeof(line),
             "times: from a run without counters (%s); counters: from %s "
             "(counter collection serialises and slows dispatches, so its times are not used)",
             r->timing_dir, passes);
    if (o->json)
        rpl_log_info("%s", line); /* `out` holds the JSON document alone */
    else
        fprintf(out, "%s\n", line);
}

/* The profiler's run; with --json the program's output goes to stderr, not beside the document. */
static int run_profiler(rpl_profile_result **r, const rpl_profile_analyze_opts *o)
{
    int saved = o->json ? dup(STDOUT_FILENO) : -1;
    int rc;

    if (saved >= 0)
        dup2(STDERR_FILENO, STDOUT_FILENO);
    rc = rpl_profile_run(r, &o->run);
    if (saved >= 0) {
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    if (rc == 0)
        rpl_log_info("%s: %u dispatches from %u file%s, counters: %s%s%s",
                     rpl_backend_name((*r)->backend), (*r)->trace->dispatches.count, (*r)->nfiles,
                     (*r)->nfiles == 1 ? "" : "s", (*r)->counters, (*r)->arch[0] ? " of " : "",
                     (*r)->arch);
    return rc;
}

int rpl_profile_analyze_run(const rpl_profile_analyze_opts *o, FILE *out)
{
    rpl_profile_result *r = NULL;
    char *db = NULL;
    int rc;

    if (o->no_profiler && o->run.app_argv)
        return run_plain(o, out);
    if (o->no_profiler) {
        if (!(r = calloc(1, sizeof(*r))))
            rc = rpl_error_oom();
        else
            rc = rpl_profile_import(r, o->traces, o->ntraces);
    } else {
        rc = run_profiler(&r, o);
    }
    if (rc == 0 && (rc = rpl_mkdir_p(o->run.out_dir)) == 0 &&
        (rc = rpl_path_join(&db, o->run.out_dir, "profile.db")) == 0)
        rc = rpl_rocpd_write(r->trace, db, NULL);
    if (rc == 0) {
        rpl_log_info("wrote %s", db);
        rc = analyze(o, db, o->no_profiler ? NULL : r, out);
        if (rc == 0 && r->timing_dir)
            say_timing(o, r, out);
    }
    free(db);
    rpl_profile_result_free(r);
    return rc;
}
