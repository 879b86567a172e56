/*
 * The candidate pipeline (rpl/pipeline.h) as the loop's backend: ranking
 * from the whole-application profile, candidates through every check,
 * accepted ones offered to the optimization session (rpl/session.h):
 * committed once approved and made the reference of the next candidates.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rpl/arch.h"
#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/llm_analysis.h"
#include "rpl/llm_loop.h"
#include "rpl/log.h"
#include "rpl/session.h"
#include "rpl/strbuf.h"

/* Whether the ranking fell back to GPU time (no kernel of the source on the critical path). */
static bool ranked_by_gpu_time(const rpl_llm_pipe_ctx *pc)
{
    const char *basis = rpl_pipe_rank_basis(pc->pipe);

    return basis && strcmp(basis, "gpu_time") == 0;
}

static int pb_ranking(void *ctx, rpl_path_kernel **kernels, size_t *n, bool *by_gpu_time)
{
    rpl_llm_pipe_ctx *pc = ctx;
    const char *const *names = NULL;
    const double *ceilings = NULL;
    size_t count = rpl_pipe_ranked(pc->pipe, &names, &ceilings);

    *kernels = NULL;
    *n = 0;
    *by_gpu_time = ranked_by_gpu_time(pc);
    if (count == 0)
        return 0;
    if (!(*kernels = calloc(count, sizeof(**kernels))))
        return rpl_error_oom();
    for (size_t i = 0; i < count; i++) {
        /* ceiling = 1/(1-f) */
        double f = isinf(ceilings[i]) ? 1.0 : ceilings[i] > 0 ? 1.0 - 1.0 / ceilings[i] : 0.0;
        (*kernels)[i] = (rpl_path_kernel){names[i], f, true};
    }
    *n = count;
    return 0;
}

/* "grid (4096, 1, 1) x block (256, 1, 1) = 1048576 threads ..." from the snapshot. */
static int geometry_text(char **out, const cJSON *launch)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(launch, "grid");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(launch, "block");
    double v[6], threads = 1, dyn = 0, stat = 0;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    *out = NULL;
    for (int i = 0; i < 3; i++) {
        const cJSON *gi = cJSON_GetArrayItem(g, i), *bi = cJSON_GetArrayItem(b, i);
        if (!cJSON_IsNumber(gi) || !cJSON_IsNumber(bi))
            return 0;
        v[i] = gi->valuedouble;
        v[3 + i] = bi->valuedouble;
        threads *= v[i] * v[3 + i];
    }
    rpl_json_get_number(launch, "dynamic_shared_bytes", &dyn);
    rpl_json_get_number(launch, "static_shared_bytes", &stat);
    rpl_error_clear();
    rc = rpl_strbuf_printf(&sb,
                           "Grid (%.0f, %.0f, %.0f) blocks of (%.0f, %.0f, %.0f) threads: %.0f "
                           "threads. Shared memory (LDS) per block: %.0f bytes static, %.0f "
                           "dynamic. (The captured launch the candidates are checked and timed "
                           "on.)",
                           v[0], v[1], v[2], v[3], v[4], v[5], threads, stat, dyn);
    if (rc == 0)
        *out = rpl_strbuf_detach(&sb);
    rpl_strbuf_release(&sb);
    return rc;
}

static int arch_text(char **out, const char *name)
{
    const rpl_arch *a = rpl_arch_find(name);
    rpl_strbuf sb = RPL_STRBUF_INIT;
    bool amd;
    int rc;

    *out = NULL;
    if (!a)
        return 0;
    amd = a->vendor == RPL_VENDOR_AMD;
    rc = rpl_strbuf_printf(&sb,
                           "%s (%s). %s size %u. Up to %u %ss per %s, %u blocks per %s, %u "
                           "threads per block. %s per %s: %u bytes (%u per block).",
                           a->name, a->family, amd ? "Wavefront" : "Warp", a->wave_size,
                           a->max_waves_per_cu, amd ? "wave" : "warp", amd ? "CU" : "SM",
                           a->max_blocks_per_cu, amd ? "CU" : "SM", a->max_workgroup_size,
                           amd ? "LDS" : "Shared memory", amd ? "CU" : "SM", a->lds_per_cu,
                           a->lds_per_workgroup);
    if (rc == 0 && amd)
        rc = rpl_strbuf_printf(&sb, " %u addressable VGPRs and %u SGPRs per wave.",
                               a->addressable_vgprs, a->addressable_sgprs);
    else if (rc == 0)
        rc = rpl_strbuf_printf(&sb, " %u registers per SM, at most %u per thread.", a->regs_per_sm,
                               a->max_regs_per_thread);
    if (rc == 0)
        *out = rpl_strbuf_detach(&sb);
    rpl_strbuf_release(&sb);
    return rc;
}

/* Arch and geometry from the kernel's snapshot (captured here if it was not yet). */
static int snapshot_facts(rpl_llm_pipe_ctx *pc, const char *kernel, rpl_llm_facts *out)
{
    char *path = NULL;
    cJSON *doc = NULL;
    const char *arch = NULL;
    int rc;

    if ((rc = rpl_pipe_prepare(pc->pipe, kernel)) != 0)
        return rc;
    if (!(path = malloc(strlen(rpl_pipe_artifacts(pc->pipe)) + strlen(kernel) + 40)))
        return rpl_error_oom();
    sprintf(path, "%s/snapshots/%s/dispatch.json", rpl_pipe_artifacts(pc->pipe), kernel);
    if (rpl_json_parse_file(&doc, path, 16u << 20) != 0) { /* a name the pipeline renamed */
        rpl_error_clear();
        free(path);
        return 0;
    }
    free(path);
    rc = geometry_text(&out->geometry, cJSON_GetObjectItemCaseSensitive(doc, "launch"));
    if (rc == 0 && rpl_json_get_string(doc, "arch", &arch) == 0)
        rc = arch_text(&out->arch_facts, arch);
    rpl_error_clear();
    cJSON_Delete(doc);
    return rc;
}

/* What the backend remembers of a kernel across the run. */
struct rpl_llm_kernel_note {
    char *kernel;
    unsigned accepted; /* changes accepted (the analysis describes the original) */
    bool not_analysed; /* the run said the analysis lacks it */
};

static int kernel_note(rpl_llm_pipe_ctx *pc, const char *kernel, struct rpl_llm_kernel_note **out)
{
    struct rpl_llm_kernel_note *n;

    for (size_t i = 0; i < pc->nnotes; i++)
        if (strcmp(pc->notes[i].kernel, kernel) == 0) {
            *out = &pc->notes[i];
            return 0;
        }
    if (!(n = realloc(pc->notes, (pc->nnotes + 1) * sizeof(*n))))
        return rpl_error_oom();
    pc->notes = n;
    n += pc->nnotes;
    memset(n, 0, sizeof(*n));
    if (!(n->kernel = strdup(kernel)))
        return rpl_error_oom();
    pc->nnotes++;
    *out = n;
    return 0;
}

/* Roofline, bottleneck and ATT from --analysis; a kernel it lacks is said once. */
static int analysis_facts(rpl_llm_pipe_ctx *pc, const char *kernel, rpl_llm_facts *out)
{
    struct rpl_llm_kernel_note *note;
    int rc;

    if (!pc->analysis)
        return 0;
    if ((rc = kernel_note(pc, kernel, &note)) != 0)
        return rc;
    rc = rpl_llm_analysis_facts(pc->analysis, kernel, note->accepted, out);
    if (rc == RPL_ENOTFOUND) {
        if (!note->not_analysed)
            rpl_log_warn("the analysis in %s has no kernel %s: its roofline, bottleneck and "
                         "ATT facts are not available",
                         pc->analysis_dir ? pc->analysis_dir : "--analysis", kernel);
        note->not_analysed = true;
        rc = 0;
    }
    return rc;
}

/* "Not available: WHY." */
static int not_available(char **out, const char *why)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = rpl_strbuf_printf(&sb, "Not available: %s.", why);

    if (rc == 0 && !(*out = rpl_strbuf_detach(&sb)))
        rc = rpl_error_oom();
    rpl_strbuf_release(&sb);
    return rc;
}

/* The formatted line appended to *text on a line of its own (*text grown). */
static int append_line(char **text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int append_line(char **text, const char *fmt, ...)
{
    size_t old = *text ? strlen(*text) + 1 : 0;
    char *grown;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(grown = realloc(*text, old + (size_t)n + 1)))
        return rpl_error_oom();
    if (old)
        grown[old - 1] = '\n';
    va_start(ap, fmt);
    vsnprintf(grown + old, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *text = grown;
    return 0;
}

/* The counter pass's analysis of the reference (read again when the folder changed). */
static int counters_facts(rpl_llm_pipe_ctx *pc, const char *kernel, const char *dir,
                          rpl_llm_facts *out)
{
    int rc = 0;

    if (!pc->counters_dir || strcmp(pc->counters_dir, dir) != 0) {
        rpl_llm_analysis_free(pc->counters);
        free(pc->counters_dir);
        pc->counters = NULL;
        if (!(pc->counters_dir = strdup(dir)))
            return rpl_error_oom();
        if ((rc = rpl_llm_analysis_load(&pc->counters, dir)) == 0)
            rc = rpl_llm_analysis_set_origin(pc->counters,
                                             "Measured on the version below by a counter pass "
                                             "over the replay of the captured dispatch.");
    }
    if (rc == 0 && pc->counters)
        rc = rpl_llm_analysis_facts(pc->counters, kernel, 0, out);
    if (rc == RPL_ENOTFOUND || rc == RPL_EINPUT) { /* said below as not available */
        rpl_log_warn("the counter pass in %s: %s", dir,
                     rc == RPL_EINPUT ? rpl_error_last()->message : "no such kernel");
        rpl_error_clear();
        rc = 0;
    }
    return rc;
}

/*
 * What the pipeline measured of the reference: static resources, the counter pass (unless
 * --analysis gave the facts), the shapes, the physical floor; a fact that cannot be had says
 * why.
 */
static int pipe_facts(rpl_llm_pipe_ctx *pc, const char *kernel, rpl_llm_facts *out)
{
    static const char why_none[] = "the counter pass recorded no dispatch of this kernel";
    rpl_pipe_facts f;
    int rc = rpl_pipe_kernel_facts(pc->pipe, kernel, &f);

    if (rc == RPL_ENOTFOUND) { /* a name the pipeline renamed */
        rpl_error_clear();
        return 0;
    }
    if (rc == 0 && !out->resources)
        rc = f.resources
                 ? ((out->resources = strdup(f.resources)) ? 0 : rpl_error_oom())
                 : not_available(&out->resources, f.resources_why ? f.resources_why : "unknown");
    /* --analysis overrides the counter pass for the kernels it has. */
    if (rc == 0 && !out->roofline && !out->bottleneck && f.counters_dir)
        rc = counters_facts(pc, kernel, f.counters_dir, out);
    if (rc == 0 && !out->roofline)
        rc = not_available(&out->roofline, f.counters_why ? f.counters_why : why_none);
    if (rc == 0 && !out->bottleneck)
        rc = not_available(&out->bottleneck, f.counters_why ? f.counters_why : why_none);
    if (rc == 0 && out->roofline && f.floor_ns > 0)
        rc = append_line(&out->roofline,
                         "- physical floor of this dispatch: %.0f ns (the %.0f bytes it changes at "
                         "%.0f GB/s, its FLOPs at %.0f GFLOP/s); at the roof with the bytes it "
                         "moves now: %.0f ns",
                         f.floor_ns, f.written_bytes, f.peak_gbps, f.peak_gflops, f.roof_ns);
    if (rc == 0 && !out->att)
        rc = not_available(&out->att, f.arch && strncmp(f.arch, "gfx", 3) != 0
                                          ? "instruction-level thread trace (ATT) exists on AMD "
                                            "GPUs only"
                                          : "the counter pass recorded no thread trace");
    if (rc == 0 && f.nshapes > 1 && f.shapes)
        rc = append_line(&out->geometry,
                         "Every candidate is also checked on the other shapes the program "
                         "launches it with (do not depend on sizes):\n%s",
                         f.shapes);
    return rc;
}

static int pb_facts(void *ctx, const char *kernel, rpl_llm_facts *out)
{
    rpl_llm_pipe_ctx *pc = ctx;
    const char *const *names = NULL;
    const double *ceilings = NULL;
    size_t count = rpl_pipe_ranked(pc->pipe, &names, &ceilings);
    bool gpu_time = ranked_by_gpu_time(pc);
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (gpu_time && count)
        rc = rpl_strbuf_printf(&sb, "No kernel of the source is on the application's critical "
                                    "path (copies or host work hold all of it); by GPU time:\n");
    for (size_t i = 0; rc == 0 && i < count; i++) {
        double f = isinf(ceilings[i]) ? 1.0 : 1.0 - 1.0 / ceilings[i];
        if (gpu_time)
            rc = rpl_strbuf_printf(&sb, "- %s: %.1f%% of the GPU's busy time%s\n", names[i],
                                   100.0 * f, strcmp(names[i], kernel) == 0 ? " (the target)" : "");
        else
            rc = rpl_strbuf_printf(&sb,
                                   "- %s: %.1f%% of the application's critical path; making it "
                                   "infinitely fast would speed the application up %.2fx%s\n",
                                   names[i], 100.0 * f, ceilings[i],
                                   strcmp(names[i], kernel) == 0 ? " (the target)" : "");
    }
    if (rc == 0 && sb.len)
        out->critical_path = rpl_strbuf_detach(&sb);
    rpl_strbuf_release(&sb);
    if (rc == 0)
        rc = snapshot_facts(pc, kernel, out);
    if (rc == 0)
        rc = analysis_facts(pc, kernel, out);
    if (rc == 0)
        rc = pipe_facts(pc, kernel, out);
    if (rc != 0)
        rpl_llm_facts_release(out);
    return rc;
}

static int pb_run(void *ctx, const rpl_pipe_candidate *c, rpl_pipe_outcome **out)
{
    return rpl_pipe_run(((rpl_llm_pipe_ctx *)ctx)->pipe, c, out);
}

static int pb_reject(void *ctx, const rpl_pipe_candidate *c, rpl_pipe_decision d,
                     const char *message, rpl_pipe_outcome **out)
{
    return rpl_pipe_record(((rpl_llm_pipe_ctx *)ctx)->pipe, c, d, message, out);
}

/* "committed <short> on <branch>" or why not (*out, free()). */
static int where_text(char **out, const rpl_session_commit *sc)
{
    if (sc->verdict != RPL_SESSION_COMMITTED)
        *out = strdup(sc->verdict == RPL_SESSION_DECLINED ? "not committed: declined"
                                                          : "not committed: dry run");
    else if ((*out = malloc(strlen(sc->branch) + 64)) != NULL)
        sprintf(*out, "committed %s on %s", sc->id.short_hex, sc->branch);
    return *out ? 0 : rpl_error_oom();
}

static int pb_accept(void *ctx, const rpl_pipe_outcome *o, const rpl_pipe_candidate *c,
                     char **where)
{
    rpl_llm_pipe_ctx *pc = ctx;
    rpl_session_commit sc;
    rpl_strbuf question = RPL_STRBUF_INIT;
    int rc;

    *where = NULL;
    rc = rpl_strbuf_printf(&question, "\n%s: %s (speedup %.3fx, 95%% CI %.3f-%.3f)\nCommit it?",
                           o->kernel, o->strategy ? o->strategy : "", o->speedup, o->speedup_lo,
                           o->speedup_hi);
    if (rc == 0 &&
        (rc = rpl_session_offer(pc->session, o, c->text, c->len, question.ptr, &sc)) == 0) {
        rc = where_text(where, &sc);
        rpl_session_commit_release(&sc);
    }
    rpl_strbuf_release(&question);
    if (rc == 0 && pc->analysis) {
        struct rpl_llm_kernel_note *note;
        if ((rc = kernel_note(pc, c->kernel, &note)) == 0) /* the loop's name */
            note->accepted++;
    }
    return rc;
}

static int pb_reports(void *ctx)
{
    return rpl_pipe_write_reports(((rpl_llm_pipe_ctx *)ctx)->pipe);
}

void rpl_llm_pipe_ctx_release(rpl_llm_pipe_ctx *ctx)
{
    rpl_llm_analysis_free(ctx->counters);
    free(ctx->counters_dir);
    ctx->counters = NULL;
    ctx->counters_dir = NULL;
    for (size_t i = 0; i < ctx->nnotes; i++)
        free(ctx->notes[i].kernel);
    free(ctx->notes);
    ctx->notes = NULL;
    ctx->nnotes = 0;
}

/* The pipeline's methods; ctx is filled in per run. */
static const rpl_llm_loop_backend pipe_methods = {
    .ranking = pb_ranking,
    .facts = pb_facts,
    .run = pb_run,
    .reject = pb_reject,
    .accept = pb_accept,
    .reports = pb_reports,
};

void rpl_llm_loop_pipe_backend(rpl_llm_loop_backend *be, rpl_llm_pipe_ctx *ctx)
{
    *be = pipe_methods;
    be->ctx = ctx;
}
