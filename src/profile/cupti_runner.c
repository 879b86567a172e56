/*
 * The CUPTI backend: run the program with our injection library
 * (CUDA_INJECTION64_PATH) which writes <dir>/<host>/<pid>_results.db itself,
 * then read those databases.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    const char *env = getenv("ROCM_PERF_CUPTI_LIB");
    char exe[PATH_MAX], *slash;
    rpl_strbuf looked = RPL_STRBUF_INIT;
    ssize_t n;
    int rc = 0;

    *out = NULL;
    if (env && env[0]) {
        if (access(env, R_OK) != 0)
            return rpl_error_set(RPL_EENV, "ROCM_PERF_CUPTI_LIB names '%s', which cannot be read",
                                 env);
        *out = strdup(env);
        return *out ? 0 : rpl_error_oom();
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return rpl_error_set(RPL_EENV,
                             "cannot find the rocm-perf binary to locate %s; set "
                             "ROCM_PERF_CUPTI_LIB",
                             CUPTI_LIB);
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    *slash = '\0';
    for (size_t i = 0; rc == 0 && i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
        rpl_strbuf sb = RPL_STRBUF_INIT;
        if ((rc = rpl_strbuf_printf(&sb, "%s/%s/%s", exe, lib_dirs[i], CUPTI_LIB)) == 0 &&
            access(sb.ptr, R_OK) == 0) {
            *out = rpl_strbuf_detach(&sb);
            break;
        }
        rpl_strbuf_release(&sb);
        if (rc == 0)
            rc = rpl_strbuf_printf(&looked, "%s%s", i ? ", " : "", lib_dirs[i]);
    }
    if (rc == 0 && !*out)
        rc = rpl_error_set(RPL_EENV,
                           "%s not found (looked in %s relative to %s); build rocm-perf-lab "
                           "with the CUDA toolkit or set ROCM_PERF_CUPTI_LIB",
                           CUPTI_LIB, rpl_strbuf_cstr(&looked), exe);
    rpl_strbuf_release(&looked);
    return rc;
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

int rpl_profile_run_cupti(rpl_profile_ctx *ctx)
{
    rpl_strbuf env[4] = {RPL_STRBUF_INIT, RPL_STRBUF_INIT, RPL_STRBUF_INIT, RPL_STRBUF_INIT};
    const char *env_set[5] = {NULL};
    const char *timing =
        ctx->opts->kernel_timing == RPL_KERNEL_TIMING_SERIAL ? "serial" : "concurrent";
    rpl_spawn_result res = {0};
    char *lib = NULL, line[240];
    int rc;

    if (ctx->opts->att)
        return rpl_error_set(RPL_EUSAGE, "--att (thread trace) needs the rocprofv3 backend");
    if ((rc = find_lib(&lib)) != 0)
        return rc;
    if ((rc = rpl_profile_reset_dir(ctx->run_dir)) != 0 ||
        (rc = rpl_strbuf_printf(&env[0], "CUDA_INJECTION64_PATH=%s", lib)) != 0 ||
        (rc = rpl_strbuf_printf(&env[1], "ROCM_PERF_CUPTI_OUTPUT=%s", ctx->run_dir)) != 0 ||
        (rc = rpl_strbuf_printf(&env[2], "ROCM_PERF_CUPTI_COUNTERS=%s", ctx->result->counters)) !=
            0 ||
        (rc = rpl_strbuf_printf(&env[3], "ROCM_PERF_CUPTI_KERNELS=%s", timing)) != 0)
        goto out;
    for (int i = 0; i < 4; i++)
        env_set[i] = env[i].ptr;
    rpl_log_info("running %s with %s (counters: %s, kernel timing: %s)", ctx->opts->app_argv[0],
                 lib, ctx->result->counters, timing);
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
                           res.exit_code, ctx->run_dir);
    if (rc == 0) {
        rc = rpl_profile_read_dir(ctx->result->trace, ctx->run_dir, &ctx->result->files,
                                  &ctx->result->nfiles);
        if (rc == RPL_ENOTFOUND)
            rc = rpl_error_set(RPL_EENV,
                               "the CUPTI recorder wrote no database under '%s' (does the "
                               "program use CUDA?)",
                               ctx->run_dir);
    }
out:
    rpl_spawn_result_release(&res);
    for (int i = 0; i < 4; i++)
        rpl_strbuf_release(&env[i]);
    free(lib);
    return rc;
}
