/*
 * The CUPTI backend: run the program with our injection library
 * (CUDA_INJECTION64_PATH) which writes <dir>/<host>/<pid>_results.db itself,
 * then read those databases.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile_int.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/spawn.h"
#include "rpl/strbuf.h"

#define CUPTI_LIB "librpl_cupti.so"

/* Places relative to the rocm-perf binary: installed (bin/../lib), beside it, build tree. */
static const char *const lib_dirs[] = {"../lib", ".", "../tools/cupti"};

static int find_lib(char **out)
{
    return rpl_find_own_lib(out, CUPTI_LIB, "ROCM_PERF_CUPTI_LIB", lib_dirs,
                            sizeof(lib_dirs) / sizeof(lib_dirs[0]),
                            "build rocm-perf-lab with the CUDA toolkit");
}

int rpl_kernel_timing_parse(rpl_kernel_timing *out, const char *name)
{
    if (strcmp(name, "concurrent") == 0)
        *out = RPL_KERNEL_TIMING_CONCURRENT;
    else if (strcmp(name, "serial") == 0)
        *out = RPL_KERNEL_TIMING_SERIAL;
    else
        return rpl_error_set(RPL_EUSAGE, "unknown kernel timing '%s' (concurrent or serial)", name);
    return 0;
}

/* Where a counter run's sample plan goes, and the mark of an early end beside it. */
#define PLAN_FILE    "sample-plan.txt"
#define STOPPED_MARK ".stopped"

/* What one run of the recorder is asked for. */
typedef struct recorder_run {
    const char *dir;      /* where it writes */
    const char *counters; /* "none": a trace-only run */
    const char *plan;     /* a counter run's sample plan file, or NULL */
    const char *progress; /* a counter run's label in its progress lines, or NULL */
} recorder_run;

/*
 * One run of the program with the recorder writing below `run->dir`, which
 * the caller has emptied.
 */
static int run_recorder(rpl_profile_ctx *ctx, const char *lib, const recorder_run *run)
{
    enum { NENV = 8 };
    rpl_strbuf env[NENV];
    const char *env_set[NENV + 1] = {NULL};
    const char *timing =
        ctx->opts->kernel_timing == RPL_KERNEL_TIMING_SERIAL ? "serial" : "concurrent";
    const rpl_profile_result *r = ctx->result;
    rpl_spawn_result res = {0};
    char line[240], per_kernel[16];
    double t0;
    size_t n = 0;
    int rc = 0;

    memset(env, 0, sizeof(env)); /* RPL_STRBUF_INIT each */
    if (r->counter_dispatches == RPL_COUNTER_DISPATCHES_ALL)
        snprintf(per_kernel, sizeof(per_kernel), "all");
    else
        snprintf(per_kernel, sizeof(per_kernel), "%u", r->counter_dispatches);
    if ((rc = rpl_strbuf_printf(&env[n++], "CUDA_INJECTION64_PATH=%s", lib)) ||
        (rc = rpl_strbuf_printf(&env[n++], "ROCM_PERF_CUPTI_OUTPUT=%s", run->dir)) ||
        (rc = rpl_strbuf_printf(&env[n++], "ROCM_PERF_CUPTI_COUNTERS=%s", run->counters)) ||
        (rc = rpl_strbuf_printf(&env[n++], "ROCM_PERF_CUPTI_KERNELS=%s", timing)) ||
        (rc = rpl_strbuf_printf(&env[n++], "ROCM_PERF_CUPTI_COUNTER_SKIP=%u", r->counter_skip)) ||
        (rc = rpl_strbuf_printf(&env[n++], "ROCM_PERF_CUPTI_COUNTER_DISPATCHES=%s", per_kernel)))
        goto out;
    if (run->plan &&
        (rc = rpl_strbuf_printf(&env[n++], "ROCM_PERF_CUPTI_COUNTER_STOP=%s", run->plan)) != 0)
        goto out;
    /* Progress lines on stderr during a long counter run, unless told to be quiet. */
    if (run->progress && rpl_log_get_level() >= RPL_LOG_WARN &&
        (rc = rpl_strbuf_printf(&env[n++], "ROCM_PERF_CUPTI_PROGRESS=%s", run->progress)) != 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        env_set[i] = env[i].ptr;
    rpl_log_info("running %s with %s (counters: %s, kernel timing: %s)", ctx->opts->app_argv[0],
                 lib, run->counters, timing);
    t0 = rpl_clock_mono_s();
    if ((rc = rpl_profile_spawn(ctx, ctx->opts->app_argv, env_set, false, &res)) != 0)
        goto out;
    rpl_log_info("the %s run took %.2f s", strcmp(run->counters, "none") ? "counter" : "trace-only",
                 rpl_clock_mono_s() - t0);
    if (!res.exited)
        rc = rpl_error_set(RPL_ERROR, "the program was killed by signal %d", res.term_signal);
    else if (res.exit_code != 0 && ctx->opts->quiet_app)
        rc = rpl_error_set(RPL_ERROR, "the program exited with status %d: %s", res.exit_code,
                           rpl_spawn_last_line(line, sizeof(line), res.err)[0] ? line
                                                                               : "(no message)");
    else if (res.exit_code != 0)
        rc = rpl_error_set(RPL_ERROR, "the program exited with status %d (outputs so far in '%s')",
                           res.exit_code, run->dir);
out:
    rpl_spawn_result_release(&res);
    for (size_t i = 0; i < NENV; i++)
        rpl_strbuf_release(&env[i]);
    return rc;
}

/*
 * The counter run's plan from the trace-only run: for each kernel, how many
 * of its dispatches the sample measures ("COUNT<TAB>NAME" lines), so the
 * recorder can end the program once every one is measured.  Only for a
 * single process (the recorder of each process sees its own launches) and a
 * sample smaller than all; *plan stays NULL otherwise.
 */
static int write_plan(rpl_profile_ctx *ctx, char **plan)
{
    const rpl_profile_result *r = ctx->result;
    rpl_trace *t = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    uint32_t *count = NULL;
    char **files = NULL;
    uint32_t nfiles = 0;
    int rc;

    *plan = NULL;
    if (r->counter_dispatches == RPL_COUNTER_DISPATCHES_ALL)
        return 0;
    if ((rc = rpl_trace_new(&t)) != 0 ||
        (rc = rpl_profile_read_dir(t, r->timing_dir, &files, &nfiles)) != 0)
        goto out;
    if (t->processes.count != 1)
        goto out;
    if (!(count = calloc((size_t)t->symbols.count + 1, sizeof(*count)))) {
        rc = rpl_error_oom();
        goto out;
    }
    for (uint32_t d = 0; d < t->dispatches.count; d++)
        if (t->dispatches.items[d].kernel < t->symbols.count)
            count[t->dispatches.items[d].kernel]++;
    for (uint32_t k = 0; k < t->symbols.count && !rc; k++) {
        uint32_t want = count[k] > r->counter_skip ? count[k] - r->counter_skip : 0;
        const char *name = t->symbols.items[k].name;
        if (want > r->counter_dispatches)
            want = r->counter_dispatches;
        if (count[k] && name && name[0] && !strchr(name, '\n'))
            rc = rpl_strbuf_printf(&sb, "%u\t%s\n", want, name);
    }
    if (!rc)
        rc = rpl_path_join(plan, ctx->run_dir, PLAN_FILE);
    if (!rc)
        rc = rpl_file_write_atomic(*plan, sb.ptr ? sb.ptr : "", sb.len);
out:
    rpl_free_strings(files, nfiles);
    free(count);
    rpl_strbuf_release(&sb);
    rpl_trace_free(t);
    if (rc) {
        free(*plan);
        *plan = NULL;
    }
    return rc;
}

/* True when the recorder marked the plan: it ended the counter run early. */
static bool stopped_early(const char *plan)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    bool yes =
        plan && rpl_strbuf_printf(&sb, "%s" STOPPED_MARK, plan) == 0 && access(sb.ptr, F_OK) == 0;

    rpl_strbuf_release(&sb);
    return yes;
}

int rpl_profile_run_cupti(rpl_profile_ctx *ctx)
{
    rpl_profile_result *r = ctx->result;
    recorder_run run = {ctx->run_dir, r->counters, NULL, NULL};
    char *lib = NULL, *plan = NULL;
    bool counting = strcmp(r->counters, "none") != 0;
    int rc;

    if (ctx->opts->att)
        return rpl_error_set(RPL_EUSAGE, "--att (thread trace) needs the rocprofv3 backend");
    if ((rc = find_lib(&lib)) != 0 || (rc = rpl_profile_reset_dir(ctx->run_dir)) != 0)
        goto out;
    /*
     * With counters the times come from a run without them, made first: the
     * counter run replays each measured kernel serially and times a memset by
     * its call.  Its dispatch counts plan the counter run's end.
     */
    if (counting) {
        recorder_run timing = {NULL, "none", NULL, NULL};
        if ((rc = rpl_path_join(&r->timing_dir, ctx->run_dir, "trace_only")) != 0)
            goto out;
        timing.dir = r->timing_dir;
        rpl_log_info("run 1 of 2: the times, without counters");
        if ((rc = run_recorder(ctx, lib, &timing)) != 0 || (rc = write_plan(ctx, &plan)) != 0)
            goto out;
        run.plan = plan;
        run.progress = "counter run (run 2 of 2)";
        rpl_log_info("run 2 of 2: the counters");
    }
    if ((rc = run_recorder(ctx, lib, &run)) != 0)
        goto out;
    r->counter_stopped_early = stopped_early(plan);
    rc = r->timing_dir ? rpl_profile_read_timed(r->trace, r->timing_dir, ctx->run_dir,
                                                r->counter_stopped_early, &r->files, &r->nfiles)
                       : rpl_profile_read_dir(r->trace, ctx->run_dir, &r->files, &r->nfiles);
    if (rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_EENV,
                           "the CUPTI recorder wrote no database under '%s' (does the "
                           "program use CUDA?)",
                           ctx->run_dir);
out:
    free(plan);
    free(lib);
    return rc;
}
