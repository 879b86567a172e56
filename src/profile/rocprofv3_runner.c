/*
 * The rocprofv3 backend: build the command (rocprofv3's CLI, ROCm/rocm-systems@1b1610f,
 * projects/rocprofiler-sdk), run it, explain a failure in one line, and read what it wrote.
 *
 * Counter passes go through an input file with one job per pass, the
 * multi-pass form of ROCm 7.0-7.2: rocprofv3 reruns the program for each job
 * with the command line's tracing options and writes below
 * <dir>/pass_<N>/.  ROCm 6.x rocprofv3 has no rocpd output; its argparse
 * rejects "rocpd", and the run is repeated with CSV output, which is then
 * imported.  That run takes the passes as "pmc:" text lines (<dir>/pmc_<N>/),
 * since ROCm 6.2's JSON input has another shape than 7.x's, and "-o %pid%",
 * since 6.2 has no %hostname%.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_int.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/spawn.h"
#include "rpl/strbuf.h"

/* Output file name below -d: rocprofv3's own default, given so the environment
 * (ROCPROF_OUTPUT_FILE_NAME) cannot move it. */
#define OUTPUT_FILE "%hostname%/%pid%"
/* ROCm 6.2 has no %hostname% placeholder. */
#define OUTPUT_FILE_CSV "%pid%"

int rpl_rocprofv3_argv(const char ***out, const rpl_rocprofv3_cmd *cmd)
{
    const char **argv;
    size_t napp = 0, n = 0;

    *out = NULL;
    while (cmd->app_argv[napp])
        napp++;
    if (napp == 0)
        return rpl_error_set(RPL_EUSAGE, "no program to profile");
    argv = calloc(napp + 20, sizeof(*argv));
    if (!argv)
        return rpl_error_oom();
    argv[n++] = cmd->rocprofv3;
    argv[n++] = "--kernel-trace";
    argv[n++] = "--memory-copy-trace";
    argv[n++] = "--hip-runtime-trace";
    argv[n++] = "--output-format";
    argv[n++] = cmd->output_format;
    argv[n++] = "-d";
    argv[n++] = cmd->output_dir;
    argv[n++] = "-o";
    argv[n++] = cmd->output_file ? cmd->output_file : OUTPUT_FILE;
    if (cmd->kernel_regex) {
        argv[n++] = "--kernel-include-regex";
        argv[n++] = cmd->kernel_regex;
    }
    if (cmd->iteration_range) {
        argv[n++] = "--kernel-iteration-range";
        argv[n++] = cmd->iteration_range;
    }
    if (cmd->att)
        argv[n++] = "--att";
    if (cmd->input_file) {
        argv[n++] = "-i";
        argv[n++] = cmd->input_file;
    }
    argv[n++] = "--";
    for (size_t i = 0; i < napp; i++)
        argv[n++] = cmd->app_argv[i];
    argv[n] = NULL;
    *out = argv;
    return 0;
}

static bool is_executable(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* dir + "/rocprofv3" when that is an executable file. */
static int try_dir(char **out, const char *dir, size_t len)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    if (len == 0)
        return 0;
    if ((rc = rpl_strbuf_put(&sb, dir, len)) != 0 ||
        (rc = rpl_strbuf_puts(&sb, "/rocprofv3")) != 0) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    if (is_executable(rpl_strbuf_cstr(&sb))) {
        *out = rpl_strbuf_detach(&sb);
        return 1;
    }
    rpl_strbuf_release(&sb);
    return 0;
}

int rpl_rocprofv3_find(char **out)
{
    const char *path = getenv("PATH"), *rocm = getenv("ROCM_PATH");
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    *out = NULL;
    for (const char *p = path ? path : ""; p && *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if ((rc = try_dir(out, p, len)) != 0)
            return rc < 0 ? rc : 0;
        p = end ? end + 1 : NULL;
    }
    if (rocm && rocm[0]) {
        if ((rc = rpl_strbuf_printf(&sb, "%s/bin", rocm)) == 0)
            rc = try_dir(out, sb.ptr, sb.len);
    } else {
        rc = try_dir(out, "/opt/rocm/bin", strlen("/opt/rocm/bin"));
    }
    rpl_strbuf_release(&sb);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    return rpl_error_set(RPL_EENV,
                         "rocprofv3 not found in PATH or %s%s (install ROCm 6.2 or later, or set "
                         "ROCM_PATH or PATH to include its bin directory)",
                         rocm && rocm[0] ? rocm : "/opt/rocm", "/bin");
}

/* Case-insensitive substring test. */
static bool has(const char *text, const char *needle)
{
    size_t n = strlen(needle);

    for (; text && *text; text++)
        if (strncasecmp(text, needle, n) == 0)
            return true;
    return false;
}

/* "... returned non-zero exit status N": how rocprofv3 reports a failed pass. */
static bool app_status_in(const char *text, int *status)
{
    static const char marker[] = "non-zero exit status ";

    for (const char *p = text; p && (p = strstr(p, marker)) != NULL; p++) {
        char *end;
        long v = strtol(p + sizeof(marker) - 1, &end, 10);
        if (end != p + sizeof(marker) - 1 && v > 0 && v < 256) {
            *status = (int)v;
            return true;
        }
    }
    return false;
}

/*
 * The program's last line on stderr: the last non-empty line that is not
 * rocprofv3's own report of the exit status.
 */
static const char *app_last_line(char *buf, size_t size, const char *err)
{
    const char *end = err + strlen(err);

    while (end > err) {
        const char *start = end;
        size_t len;
        while (start > err && start[-1] != '\n')
            start--;
        len = (size_t)(end - start);
        while (len && (start[len - 1] == '\r' || start[len - 1] == ' '))
            len--;
        if (len > size - 1)
            len = size - 1;
        memcpy(buf, start, len);
        buf[len] = '\0';
        if (len && !has(buf, "exit status") && !has(buf, "exit code"))
            return buf;
        end = start > err ? start - 1 : err;
    }
    return "(no message)";
}

/*
 * Why rocprofv3 failed, as one error.  `outputs` tells whether it wrote
 * anything (then the profiler ran and the program failed).
 */
static int explain(const rpl_spawn_result *res, const rpl_profile_ctx *ctx, bool outputs)
{
    const char *err = res->err ? res->err : "";
    char line[240];
    int status = res->exit_code;

    if (!res->exited)
        return rpl_error_set(RPL_ERROR, "rocprofv3 was killed by signal %d", res->term_signal);
    if (has(err, "permission denied") && has(err, "kfd"))
        return rpl_error_set(RPL_EENV,
                             "permission denied on /dev/kfd: add your user to the 'render' and "
                             "'video' groups (sudo usermod -aG render,video $USER) and log in "
                             "again");
    if (has(err, "no agents") || has(err, "no gpu agents") || has(err, "no gpu devices") ||
        has(err, "hsa_status_error_out_of_resources") ||
        (has(err, "/dev/kfd") && (has(err, "no such file") || has(err, "not found"))) ||
        (!outputs && !rpl_probe_has_kfd(ctx)))
        return rpl_error_set(
            RPL_ENODEV, "no AMD GPU for rocprofv3 (%s)",
            rpl_spawn_last_line(line, sizeof(line), err)[0] ? line : "/dev/kfd not found");
    if ((app_status_in(err, &status) || outputs) && ctx->opts->quiet_app)
        return rpl_error_set(RPL_ERROR, "the program exited with status %d under rocprofv3: %s",
                             status, app_last_line(line, sizeof(line), err));
    if (app_status_in(err, &status) || outputs)
        return rpl_error_set(RPL_ERROR,
                             "the program exited with status %d under rocprofv3 (outputs so far "
                             "in '%s')",
                             status, ctx->run_dir);
    return rpl_error_set(RPL_EENV, "rocprofv3 failed with exit status %d: %s", status,
                         rpl_spawn_last_line(line, sizeof(line), err)[0] ? line : "(no message)");
}

/* A previous run's input files, so DIR never shows passes this run did not use. */
static int remove_stale_inputs(const char *out_dir)
{
    static const char *const names[] = {"rocprofv3-passes.json", "rocprofv3-passes.txt"};
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < sizeof(names) / sizeof(names[0]); i++) {
        char *path;
        if ((rc = rpl_path_join(&path, out_dir, names[i])) != 0)
            break;
        if (remove(path) != 0 && errno != ENOENT)
            rc = rpl_error_set(RPL_EIO, "cannot remove '%s': %s", path, strerror(errno));
        free(path);
    }
    return rc;
}

/*
 * One rocprofv3 run into `dir` with `format` "rocpd" (the passes as JSON) or
 * "csv" (ROCm 6.x: the passes as text); *rocpd_unsupported when this
 * rocprofv3 predates rocpd output.  Without `counters` it is the trace-only
 * run that gives a counter run its times: no passes, no thread trace.
 */
static int run_once(rpl_profile_ctx *ctx, const char *rocprofv3, const char *format,
                    const char *dir, bool counters, bool *rocpd_unsupported)
{
    bool csv = strcmp(format, "csv") == 0;
    char *input_file = NULL, *input_text = NULL, range[48];
    rpl_rocprofv3_cmd cmd = {0};
    rpl_spawn_result res = {0};
    const char **argv = NULL;
    int rc;

    *rocpd_unsupported = false;
    if (counters && ctx->plan->npasses > 0 &&
        ((rc = csv ? rpl_rocprofv3_passes_text(&input_text, ctx->plan)
                   : rpl_rocprofv3_passes_json(&input_text, ctx->plan)) != 0 ||
         (rc = rpl_path_join(&input_file, ctx->opts->out_dir,
                             csv ? "rocprofv3-passes.txt" : "rocprofv3-passes.json")) != 0))
        goto out;
    cmd.rocprofv3 = rocprofv3;
    cmd.output_dir = dir;
    cmd.output_format = format;
    cmd.output_file = csv ? OUTPUT_FILE_CSV : OUTPUT_FILE;
    cmd.input_file = input_file;
    cmd.kernel_regex = ctx->opts->kernel_regex;
    /* The sample: dispatches skip+1 .. skip+N of each kernel (rocprofv3 counts from 1). */
    if (counters && ctx->plan->npasses > 0 &&
        ctx->result->counter_dispatches != RPL_COUNTER_DISPATCHES_ALL) {
        uint64_t first = (uint64_t)ctx->result->counter_skip + 1;
        snprintf(range, sizeof(range), "[%llu-%llu]", (unsigned long long)first,
                 (unsigned long long)(first + ctx->result->counter_dispatches - 1));
        cmd.iteration_range = range;
    }
    cmd.att = counters && ctx->opts->att;
    cmd.app_argv = ctx->opts->app_argv;
    if ((rc = rpl_rocprofv3_argv(&argv, &cmd)) != 0 || (rc = rpl_profile_reset_dir(dir)) != 0 ||
        (counters && (rc = remove_stale_inputs(ctx->opts->out_dir)) != 0))
        goto out;
    if (input_file && (rc = rpl_file_write_atomic(input_file, input_text, strlen(input_text))) != 0)
        goto out;
    if (counters)
        rpl_log_info("running %s with %u counter pass%s", rocprofv3, ctx->plan->npasses,
                     ctx->plan->npasses == 1 ? "" : "es");
    else
        rpl_log_info("running %s without counters, for the dispatch times", rocprofv3);
    if ((rc = rpl_profile_spawn(ctx, argv, NULL, true, &res)) != 0)
        goto out;
    /* The argument error of a rocprofv3 without rocpd is ours to handle, not to show. */
    if (res.exited && res.exit_code != 0 && has(res.err, "invalid choice") &&
        has(res.err, "'rocpd'")) {
        *rocpd_unsupported = true;
        goto out;
    }
    if (!ctx->opts->quiet_app)
        rpl_profile_echo_stderr(&res);
    if (!res.exited || res.exit_code != 0)
        rc = explain(&res, ctx, rpl_profile_dir_has_output(dir));
out:
    rpl_spawn_result_release(&res);
    RPL_FREE_EACH(argv, input_text, input_file);
    return rc;
}

int rpl_profile_run_rocprofv3(rpl_profile_ctx *ctx)
{
    rpl_profile_result *r = ctx->result;
    const char *format = "rocpd";
    char *rocprofv3 = NULL;
    bool old;
    int rc;

    if ((rc = rpl_rocprofv3_find(&rocprofv3)) != 0)
        return rc;
    rc = run_once(ctx, rocprofv3, format, ctx->run_dir, true, &old);
    if (rc == 0 && old) {
        rpl_log_warn("this rocprofv3 has no rocpd output (ROCm before 7.0): using its CSV output");
        r->csv_fallback = true;
        format = "csv";
        rc = run_once(ctx, rocprofv3, format, ctx->run_dir, true, &old);
        if (rc == 0 && old)
            rc = rpl_error_set(RPL_EENV, "rocprofv3 accepts neither rocpd nor csv output");
    }
    /* Counter collection serialises dispatches and adds its own time to each: the times come
     * from one more run without counters, the counters from the passes. */
    if (rc == 0 && ctx->plan->npasses > 0 &&
        (rc = rpl_path_join(&r->timing_dir, ctx->run_dir, "trace_only")) == 0)
        rc = run_once(ctx, rocprofv3, format, r->timing_dir, false, &old);
    if (rc == 0) {
        rc = r->timing_dir ? rpl_profile_read_timed(r->trace, r->timing_dir, ctx->run_dir, false,
                                                    &r->files, &r->nfiles)
                           : rpl_profile_read_dir(r->trace, ctx->run_dir, &r->files, &r->nfiles);
        if (rc == RPL_ENOTFOUND)
            rc =
                rpl_error_set(RPL_EENV, "rocprofv3 exited cleanly but wrote no database under '%s'",
                              ctx->run_dir);
    }
    free(rocprofv3);
    return rc;
}
