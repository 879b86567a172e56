/* rpl_profile_run: pick the backend, plan the counters, run, read (see rpl/profile_backend.h). */
#include <stdlib.h>
#include <string.h>

#include "profile_int.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"

void rpl_profile_result_free(rpl_profile_result *r)
{
    if (!r)
        return;
    rpl_trace_free(r->trace);
    rpl_free_strings(r->files, r->nfiles);
    RPL_FREE_EACH(r->run_dir, r->timing_dir, r->counters);
    rpl_counter_plan_free(r->plan);
    free(r);
}

/* rocprofv3: the plan of the spec; without a spec roofline where the architecture has one. */
static int plan_rocprofv3(rpl_profile_ctx *ctx, const char *arch)
{
    rpl_profile_result *r = ctx->result;
    const char *spec = ctx->opts->counters;
    int rc;

    if (!spec) {
        rc = rpl_counter_plan_make(&r->plan, "roofline", arch);
        if (rc == RPL_ENOTFOUND) {
            rpl_log_warn("%s; profiling without counters (see --counters)",
                         rpl_error_last()->message);
            rpl_error_clear();
            spec = "none";
            rc = rpl_counter_plan_make(&r->plan, spec, arch);
        } else {
            spec = "roofline";
        }
    } else {
        rc = rpl_counter_plan_make(&r->plan, spec, arch);
    }
    if (rc == 0 && !(r->counters = strdup(spec)))
        rc = rpl_error_oom();
    if (rc == 0 && strcmp(spec, "roofline") == 0)
        snprintf(r->arch, sizeof(r->arch), "%s", arch);
    return rc;
}

/* cupti: the recorder takes "roofline", "none" or a comma-separated list. */
static int plan_cupti(rpl_profile_ctx *ctx)
{
    rpl_profile_result *r = ctx->result;
    const char *spec = ctx->opts->counters ? ctx->opts->counters : "roofline";
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char *copy = strdup(spec), *save = NULL, *tok;
    int rc = 0;

    if (!copy)
        return rpl_error_oom();
    for (tok = strtok_r(copy, ", \t", &save); tok && rc == 0; tok = strtok_r(NULL, ", \t", &save))
        rc = rpl_strbuf_printf(&sb, "%s%s", sb.len ? "," : "", tok);
    free(copy);
    if (rc == 0 && sb.len == 0)
        rc = rpl_error_set(RPL_EUSAGE, "--counters lists no counters");
    if (rc == 0 && !(r->plan = calloc(1, sizeof(*r->plan))))
        rc = rpl_error_oom();
    if (rc == 0)
        r->counters = rpl_strbuf_detach(&sb);
    rpl_strbuf_release(&sb);
    return rc;
}

int rpl_profile_run(rpl_profile_result **out, const rpl_profile_opts *opts)
{
    rpl_profile_ctx ctx = {0};
    rpl_profile_result *r = calloc(1, sizeof(*r));
    const char *arch;
    int rc;

    *out = NULL;
    if (!r)
        return rpl_error_oom();
    ctx.opts = opts;
    ctx.result = r;
    r->counter_skip = opts->counter_skip;
    r->counter_dispatches =
        opts->counter_dispatches ? opts->counter_dispatches : RPL_COUNTER_DISPATCHES_DEFAULT;
    if ((rc = rpl_trace_new(&r->trace)) != 0 ||
        (rc = rpl_gpu_probe_run(&ctx.probe, opts->probe_root)) != 0 ||
        (rc = rpl_backend_select(&r->backend, opts->backend, &ctx.probe)) != 0)
        goto out;
    arch = opts->arch ? opts->arch : ctx.probe.amd_arch;
    if (r->backend == RPL_BACKEND_ROCPROFV3)
        rc = plan_rocprofv3(&ctx, arch);
    else
        rc = plan_cupti(&ctx);
    if (rc == 0)
        rc = rpl_path_join(&r->run_dir, opts->out_dir,
                           r->backend == RPL_BACKEND_ROCPROFV3 ? "rocprofv3" : "cupti");
    if (rc)
        goto out;
    ctx.plan = r->plan;
    ctx.run_dir = r->run_dir;
    rc = r->backend == RPL_BACKEND_ROCPROFV3 ? rpl_profile_run_rocprofv3(&ctx)
                                             : rpl_profile_run_cupti(&ctx);
out:
    if (rc) {
        rpl_profile_result_free(r);
        return rc;
    }
    *out = r;
    return 0;
}
