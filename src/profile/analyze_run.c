/*
 * rpl_analyze_run: read the traces, summarise the kernels, print the table
 * or profile.json and with an output folder write every analysis file into
 * it.  At the profile layer: a folder argument may be a profiler's own
 * output folder, which rpl_profile_read_dir reads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpl/analysis_report.h"
#include "rpl/analyze.h"
#include "rpl/classify.h"
#include "rpl/clock.h"
#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/profile.h"
#include "rpl/profile_backend.h"
#include "rpl/rocpd.h"
#include "rpl/roofline.h"

/*
 * One step of the analysis, run on a second thread or on this one, with its
 * status and error message (messages are thread-local) kept for the caller.
 */
typedef struct analyze_job {
    pthread_t thread;
    bool on_thread; /* running or finished on a thread that is not joined yet */
    int (*fn)(void *arg);
    void *arg;
    int rc;
    char message[1024];
} analyze_job;

/* What every analysis output is made from. */
typedef struct analyze_ctx {
    const rpl_analyze_opts *opts;
    FILE *out;
    rpl_trace *trace; /* every trace DB merged, with the counter passes */
    rpl_kernel_filter filter;
    char **inputs; /* the databases read (a folder argument resolved), for the reports */
    size_t ninputs;
    rpl_counter_sample sample; /* which dispatches carry counters */
    rpl_profile *profile;
    cJSON *profile_doc;
    /* out_dir: once the summary is made, the DAG is built on a second thread
     * while profile.json and the table are made on this one, which read only
     * the dispatches, copies and symbols (the DAG frees the API regions).
     * Then roofline.json is printed there while dag.json is written here. */
    analyze_job dag_job, print_job;
    rpl_dag *dag;
    rpl_analysis *analysis;
    cJSON *roofline_doc; /* made before the DAG is known; its critical-path fields after */
    char *roofline_text;
} analyze_ctx;

/* Append a database read to ctx->inputs (taking `path`). */
static int add_input(analyze_ctx *ctx, char *path)
{
    char **n = path ? realloc(ctx->inputs, (ctx->ninputs + 1) * sizeof(*n)) : NULL;

    if (!n) {
        free(path);
        return rpl_error_oom();
    }
    ctx->inputs = n;
    ctx->inputs[ctx->ninputs++] = path;
    return 0;
}

/*
 * A folder: a `rocm-perf profile` output folder (its profile.db), else a
 * profiler's own output folder (its databases, counter passes merged).  The
 * databases read become inputs, so that the reports name files `report`
 * can read again.
 */
static int read_folder(analyze_ctx *ctx, const char *dir, const rpl_rocpd_read_opts *read)
{
    char *db = NULL, **files = NULL;
    uint32_t nfiles = 0, i = 0;
    struct stat st;
    int rc = rpl_path_join(&db, dir, "profile.db");

    if (!rc && stat(db, &st) == 0) {
        if ((rc = rpl_rocpd_read_with(ctx->trace, db, read)) == 0)
            return add_input(ctx, db);
    } else if (!rc) {
        rc = rpl_profile_read_dir(ctx->trace, dir, &files, &nfiles);
        if (rc == RPL_ENOTFOUND)
            rc = rpl_error_set(RPL_EINPUT,
                               "'%s' holds neither profile.db (a 'rocm-perf profile' output "
                               "folder) nor a profiler's databases",
                               dir);
        for (; !rc && i < nfiles; i++)
            rc = add_input(ctx, files[i]);
    }
    for (; i < nfiles; i++)
        free(files[i]);
    free(files);
    free(db);
    return rc;
}

/* The dispatches that carry counters, of all of them. */
static void count_measured(analyze_ctx *ctx)
{
    const rpl_trace *t = ctx->trace;

    ctx->sample.dispatches = t->dispatches.count;
    ctx->sample.measured = 0;
    for (uint32_t d = 0; d < t->dispatches.count; d++)
        ctx->sample.measured += t->dispatches.items[d].counters_count > 0;
}

/* Read every trace DB into one trace, then merge each counter pass into it. */
static int load_trace(analyze_ctx *ctx)
{
    const rpl_analyze_opts *o = ctx->opts;
    /* Of the API arguments only the DAG reads a few: the others are not kept. */
    rpl_rocpd_read_opts read = {rpl_dag_arg_names};
    int rc = rpl_trace_new(&ctx->trace);
    struct stat st;

    for (size_t i = 0; !rc && i < o->ntraces; i++) {
        if (stat(o->traces[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc = read_folder(ctx, o->traces[i], &read);
        else if ((rc = rpl_rocpd_read_with(ctx->trace, o->traces[i], &read)) == 0)
            rc = add_input(ctx, strdup(o->traces[i]));
        rpl_log_info("read '%s': %u dispatches in all so far", o->traces[i],
                     ctx->trace ? ctx->trace->dispatches.count : 0);
    }
    for (size_t i = 0; !rc && i < o->npasses; i++) {
        rpl_trace *pass;
        rc = rpl_trace_new(&pass);
        if (!rc)
            rc = rpl_rocpd_read(pass, o->passes[i]);
        if (!rc) {
            rc = rpl_trace_merge_counter_pass(ctx->trace, pass);
            if (rc)
                rpl_error_prefix("counter pass '%s'", o->passes[i]);
        }
        rpl_trace_free(pass);
    }
    if (!rc)
        count_measured(ctx);
    return rc;
}

/* No kernel to summarise: say why, and what would help. */
static int explain_empty(const analyze_ctx *ctx)
{
    const rpl_profile *p = ctx->profile;

    if (p->totals.dispatches == 0)
        return rpl_error_set(RPL_EINPUT, "the trace has no kernel dispatches");
    if (ctx->opts->kernel_regex)
        return rpl_error_set(RPL_EINPUT,
                             "no %skernel matches --kernel '%s' (%u kernels in the trace)",
                             ctx->opts->include_helpers ? "" : "non-helper ",
                             ctx->opts->kernel_regex, p->totals.kernels);
    return rpl_error_set(RPL_EINPUT,
                         "the trace holds only runtime helper kernels (%llu dispatches, e.g. "
                         "'%s'); use --include-helpers to summarise them",
                         (unsigned long long)p->totals.helper_dispatches,
                         p->top_helper ? p->top_helper : "?");
}

static int print_summary(const analyze_ctx *ctx)
{
    rpl_strbuf table = RPL_STRBUF_INIT;
    char *text = NULL;
    int rc;

    if (ctx->opts->json) {
        rc = rpl_json_print(&text, ctx->profile_doc);
        if (!rc)
            fputs(text, ctx->out);
        free(text);
    } else {
        rc = rpl_profile_table(&table, ctx->profile, ctx->opts->top);
        /* Say so when only some dispatches carry counters. */
        if (!rc && ctx->sample.measured && ctx->sample.measured < ctx->sample.dispatches)
            rc = rpl_counter_sample_line(&table, &ctx->sample);
        if (!rc)
            fputs(rpl_strbuf_cstr(&table), ctx->out);
        rpl_strbuf_release(&table);
    }
    if (!rc && (fflush(ctx->out) != 0 || ferror(ctx->out)))
        rc = rpl_error_set(RPL_EIO, "writing to standard output failed");
    return rc;
}

static int write_json(const char *dir, const char *name, const cJSON *doc)
{
    char *path;
    int rc = rpl_path_join(&path, dir, name);

    if (rc)
        return rc;
    rc = rpl_json_write_file(path, doc);
    if (!rc)
        rpl_log_info("wrote %s", path);
    free(path);
    return rc;
}

static void *job_main(void *arg)
{
    analyze_job *job = arg;

    job->rc = job->fn(job->arg);
    if (job->rc)
        snprintf(job->message, sizeof(job->message), "%s", rpl_error_last()->message);
    return NULL;
}

/* Run fn(arg) on a second thread when `thread` (here when none can be had), else here. */
static void job_start(analyze_job *job, int (*fn)(void *), void *arg, bool thread)
{
    job->fn = fn;
    job->arg = arg;
    job->on_thread = thread && pthread_create(&job->thread, NULL, job_main, job) == 0;
    if (!job->on_thread)
        job_main(job);
}

/* Wait for the job to end; its status, with its message set on this thread. */
static int job_wait(analyze_job *job)
{
    if (job->on_thread)
        pthread_join(job->thread, NULL);
    job->on_thread = false;
    return job->rc ? rpl_error_set(job->rc, "%s", job->message) : 0;
}

/* The DAG (on the second thread). */
static int build_dag(void *arg)
{
    analyze_ctx *ctx = arg;
    rpl_dag_opts opts;
    int rc;

    /* One DAG serves dag.json and the critical-path shares of the analysis. */
    rpl_dag_opts_init(&opts);
    opts.filter = &ctx->filter;
    /* The DAG is the API regions' only reader: it frees them as soon as it can. */
    if ((rc = rpl_dag_build_release_api(&ctx->dag, ctx->trace, &opts)) != 0)
        rpl_error_prefix("critical-path DAG");
    return rc;
}

/* The analysis of every kernel (once the DAG is built). */
static int build_analysis(void *arg)
{
    analyze_ctx *ctx = arg;
    rpl_roofline_opts opts = {ctx->opts->att_dir, ctx->opts->ceilings_path, NULL};

    return rpl_analysis_build_kernels(&ctx->analysis, ctx->trace, &ctx->filter, &opts);
}

/*
 * roofline.json made and printed (on the second thread, once the DAG is
 * built: its document, tens of MB on large traces, is not held beside the
 * DAG's temporaries).
 */
static int print_roofline(void *arg)
{
    analyze_ctx *ctx = arg;
    int rc = rpl_roofline_json(&ctx->roofline_doc, ctx->analysis);

    if (!rc)
        rc = rpl_roofline_json_set_path(ctx->roofline_doc, ctx->analysis);

    if (!rc)
        rc = rpl_json_print(&ctx->roofline_text, ctx->roofline_doc);
    /* The text is all that is written from here on: drop the document (tens of MB) now. */
    if (!rc) {
        cJSON_Delete(ctx->roofline_doc);
        ctx->roofline_doc = NULL;
    }
    return rc;
}

/* After the table: the critical path's make-up and its dominant kernel (dag.json). */
static int print_dominant(const analyze_ctx *ctx)
{
    char *text = NULL;
    int rc = rpl_dag_dominant_text(&text, ctx->dag);

    if (rc)
        return rc;
    fprintf(ctx->out, "%s(details: rocm-perf report %s)\n", text, ctx->opts->out_dir);
    free(text);
    if (fflush(ctx->out) != 0 || ferror(ctx->out))
        rc = rpl_error_set(RPL_EIO, "writing to standard output failed");
    return rc;
}

/*
 * The output folder: every analysis writes its file here, in the order profile.json,
 * dag.json, roofline.json and analysis.json; the first error stops the rest.
 */
static int write_outputs(analyze_ctx *ctx)
{
    analyze_job analysis = {0};
    int rc = rpl_mkdir_p(ctx->opts->out_dir);

    if (!rc)
        rc = write_json(ctx->opts->out_dir, "profile.json", ctx->profile_doc);
    if (rc)
        return rc;
    rc = job_wait(&ctx->dag_job);
    /* The analysis after the DAG, not beside its temporaries (the peak memory); its error
     * comes after dag.json's. */
    if (!rc)
        job_start(&analysis, build_analysis, ctx, false);
    if (!rc && !analysis.rc) {
        rpl_analysis_attach_dag(ctx->analysis, ctx->dag);
        job_start(&ctx->print_job, print_roofline, ctx, true);
    }
    if (!rc)
        rc = rpl_dag_json_write(ctx->opts->out_dir, ctx->dag, &ctx->filter,
                                (const char *const *)ctx->inputs, ctx->ninputs);
    if (!rc)
        rc = job_wait(&analysis);
    if (!rc)
        rc = job_wait(&ctx->print_job);
    if (!rc)
        rc = rpl_roofline_write_outputs(ctx->opts->out_dir, ctx->analysis, ctx->roofline_text);
    if (!rc && !ctx->opts->json)
        rc = print_dominant(ctx);
    return rc;
}

/* After an error the jobs may still run: wait for them, then free everything. */
static void release(analyze_ctx *ctx)
{
    job_wait(&ctx->dag_job);
    job_wait(&ctx->print_job);
    rpl_dag_free(ctx->dag);
    cJSON_Delete(ctx->roofline_doc);
    free(ctx->roofline_text);
    rpl_analysis_free(ctx->analysis);
    cJSON_Delete(ctx->profile_doc);
    rpl_profile_free(ctx->profile);
    rpl_trace_free(ctx->trace);
    rpl_kernel_filter_release(&ctx->filter);
    rpl_free_strings(ctx->inputs, ctx->ninputs);
}

static int run(analyze_ctx *ctx)
{
    const rpl_analyze_opts *o = ctx->opts;
    rpl_report_inputs in = {NULL, 0, o->passes, o->npasses, NULL};
    double t0, t1;
    int rc;

    rc = rpl_kernel_filter_init(&ctx->filter, o->kernel_regex, o->helper_regex, o->include_helpers);
    if (rc)
        return rc;
    t0 = rpl_clock_mono_s();
    rc = load_trace(ctx);
    t1 = rpl_clock_mono_s();
    if (!rc)
        rc = rpl_profile_build(&ctx->profile, ctx->trace, &ctx->filter);
    /*
     * The DAG after the summary, not beside it: its first step holds the
     * whole trace and what it takes of the API regions before freeing them
     * (the peak memory), and the summary's temporaries would add to it.
     */
    if (!rc && o->out_dir)
        job_start(&ctx->dag_job, build_dag, ctx, true);
    if (!rc)
        rpl_log_debug("read %u dispatches in %.1f ms, summarised in %.1f ms",
                      ctx->trace->dispatches.count, (t1 - t0) * 1e3,
                      (rpl_clock_mono_s() - t1) * 1e3);
    if (!rc && ctx->profile->nkernels == 0)
        rc = explain_empty(ctx);
    in.traces = (const char *const *)ctx->inputs;
    in.ntraces = ctx->ninputs;
    if (!rc && o->sample)
        in.counter_sample = &ctx->sample;
    if (!rc)
        rc = rpl_profile_json(&ctx->profile_doc, ctx->profile, &in);
    if (!rc)
        rc = print_summary(ctx);
    if (!rc && o->out_dir)
        rc = write_outputs(ctx);
    return rc;
}

int rpl_analyze_run(const rpl_analyze_opts *o, FILE *out)
{
    analyze_ctx ctx = {0};
    int rc;

    ctx.opts = o;
    ctx.out = out;
    if (o->sample)
        ctx.sample = *o->sample;
    rc = run(&ctx);
    release(&ctx);
    return rc;
}
