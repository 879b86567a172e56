/*
 * The CUPTI backend: run the program with our injection library
 * (CUDA_INJECTION64_PATH) which writes <dir>/<host>/<pid>_results.db itself,
 * then read those databases.
 */
#include <stdlib.h>
#include <string.h>

#include "profile_int.h"
#include "rpl/error.h"
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

/*
 * One run of the program with the recorder writing below `dir`, with the
 * counter spec `counters` ("none": a trace-only run).
 */
static int run_recorder(rpl_profile_ctx *ctx, const char *lib, const char *dir,
                        const char *counters)
{
    rpl_strbuf env[4] = {RPL_STRBUF_INIT, RPL_STRBUF_INIT, RPL_STRBUF_INIT, RPL_STRBUF_INIT};
    const char *env_set[5] = {NULL};
    const char *timing =
        ctx->opts->kernel_timing == RPL_KERNEL_TIMING_SERIAL ? "serial" : "concurrent";
    rpl_spawn_result res = {0};
    char line[240];
    int rc;

    if ((rc = rpl_profile_reset_dir(dir)) != 0 ||
        (rc = rpl_strbuf_printf(&env[0], "CUDA_INJECTION64_PATH=%s", lib)) != 0 ||
        (rc = rpl_strbuf_printf(&env[1], "ROCM_PERF_CUPTI_OUTPUT=%s", dir)) != 0 ||
        (rc = rpl_strbuf_printf(&env[2], "ROCM_PERF_CUPTI_COUNTERS=%s", counters)) != 0 ||
        (rc = rpl_strbuf_printf(&env[3], "ROCM_PERF_CUPTI_KERNELS=%s", timing)) != 0)
        goto out;
    for (int i = 0; i < 4; i++)
        env_set[i] = env[i].ptr;
    rpl_log_info("running %s with %s (counters: %s, kernel timing: %s)", ctx->opts->app_argv[0],
                 lib, counters, timing);
    if ((rc = rpl_profile_spawn(ctx, ctx->opts->app_argv, env_set, false, &res)) != 0)
        goto out;
    if (!res.exited)
        rc = rpl_error_set(RPL_ERROR, "the program was killed by signal %d", res.term_signal);
    else if (res.exit_code != 0 && ctx->opts->quiet_app)
        rc = rpl_error_set(RPL_ERROR, "the program exited with status %d: %s", res.exit_code,
                           rpl_profile_last_line(line, sizeof(line), res.err)[0] ? line
                                                                                 : "(no message)");
    else if (res.exit_code != 0)
        rc = rpl_error_set(RPL_ERROR, "the program exited with status %d (outputs so far in '%s')",
                           res.exit_code, dir);
out:
    rpl_spawn_result_release(&res);
    for (int i = 0; i < 4; i++)
        rpl_strbuf_release(&env[i]);
    return rc;
}

int rpl_profile_run_cupti(rpl_profile_ctx *ctx)
{
    rpl_profile_result *r = ctx->result;
    char *lib = NULL;
    int rc;

    if (ctx->opts->att)
        return rpl_error_set(RPL_EUSAGE, "--att (thread trace) needs the rocprofv3 backend");
    if ((rc = find_lib(&lib)) != 0)
        return rc;
    rc = run_recorder(ctx, lib, ctx->run_dir, r->counters);
    /* A counter run replays every kernel serially and times a memset by its call: the times
     * come from one more run without counters, the counters from this one. */
    if (rc == 0 && strcmp(r->counters, "none") != 0 &&
        (rc = rpl_path_join(&r->timing_dir, ctx->run_dir, "trace_only")) == 0)
        rc = run_recorder(ctx, lib, r->timing_dir, "none");
    if (rc == 0) {
        rc = r->timing_dir ? rpl_profile_read_timed(r->trace, r->timing_dir, ctx->run_dir,
                                                    &r->files, &r->nfiles)
                           : rpl_profile_read_dir(r->trace, ctx->run_dir, &r->files, &r->nfiles);
        if (rc == RPL_ENOTFOUND)
            rc = rpl_error_set(RPL_EENV,
                               "the CUPTI recorder wrote no database under '%s' (does the "
                               "program use CUDA?)",
                               ctx->run_dir);
    }
    free(lib);
    return rc;
}
