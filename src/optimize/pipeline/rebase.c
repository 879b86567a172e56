/*
 * rpl_pipe_rebase (rpl/pipeline.h): llm-optimize goes on from its best
 * candidate, so an accepted candidate becomes the reference that the next
 * ones are measured, statically compared, signature-checked and gated
 * against.  The snapshots, and with them the correctness reference, stay
 * those captured from the original.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_int.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"

/* Rank again from the candidate's whole-application profile (dag.json of its app step). */
static int rerank(rpl_pipe *p, const rpl_pipe_outcome *o)
{
    char *path = NULL;
    cJSON *dag = NULL;
    int rc;

    if (isnan(o->app_cand_ns))
        return 0; /* no app step: the ranking stays */
    if ((rc = pipe_set(&path, "%s/candidates/%s/profile/dag.json", p->artifacts, o->id)) != 0 ||
        (rc = rpl_json_parse_file(&dag, path, 256u << 20)) != 0) {
        free(path);
        return rc;
    }
    pipe_argv_free(p->ranked);
    free(p->ceilings);
    p->ranked = NULL;
    p->ceilings = NULL;
    p->nranked = 0;
    rc = pipe_rank(p, dag);
    cJSON_Delete(dag);
    free(path);
    return rc;
}

/*
 * The facts of a kernel from its new reference; for the accepted candidate's kernel its
 * outcome gets the counter figures of before and after side by side.
 */
static int remeasure(rpl_pipe *p, pipe_kernel *k, rpl_pipe_outcome *o)
{
    double flops = k->flops, bytes = k->bytes, roof = k->roof_ns;
    int rc = pipe_kernel_measure(p, k);

    if (rc == 0 && o && !isnan(bytes) && !isnan(k->bytes) &&
        ((rc = pipe_add_metric(o, "counter_flops", flops, k->flops)) != 0 ||
         (rc = pipe_add_metric(o, "counter_hbm_bytes", bytes, k->bytes)) != 0 ||
         (rc = pipe_add_metric(o, "roofline_ns", roof, k->roof_ns)) != 0))
        return rc;
    return rc;
}

int rpl_pipe_rebase(rpl_pipe *p, const rpl_pipe_outcome *o)
{
    rpl_kernel_source *ks = NULL;
    char *text = NULL;
    size_t i, len = 0;
    pipe_build old;
    int rc;

    for (i = 0; i < p->noutcomes && p->outcomes[i] != o; i++)
        ;
    if (i == p->noutcomes || o->decision != RPL_PIPE_ACCEPTED || !p->builds[i].scratch)
        return rpl_error_set(RPL_EUSAGE, "only an accepted candidate of this pipeline can become "
                                         "its reference");
    if ((rc = rpl_file_read_all(o->source_path, 16u << 20, &text, &len)) != 0 ||
        (rc = rpl_kernel_source_parse_buffer(&ks, p->target->source, text, len, &p->ks)) != 0) {
        free(text);
        return rc;
    }
    /* The candidate's build becomes the original's; the old one is released at close. */
    old = p->orig;
    p->orig = p->builds[i];
    p->builds[i] = old;
    free(p->orig_text);
    p->orig_text = text;
    p->orig_len = len;
    rpl_kernel_source_free(p->orig_ks);
    p->orig_ks = ks;

    /* The reference code object of every kernel prepared so far, from the new original. */
    for (size_t k = 0; k < p->nkernels; k++) {
        pipe_kernel *pk = &p->kernels[k];
        const char *base = strrchr(pk->orig_co, '/');
        char *co = NULL;
        bool failed = false;
        if ((rc = pipe_set(&co, "%s/rocm-perf-build/%s", rpl_scratch_path(p->orig.scratch),
                           base ? base + 1 : pk->orig_co)) != 0)
            return rc;
        if ((rc = pipe_build_codeobj(p, &p->orig, pk, co, &failed)) != 0 || failed) {
            free(co);
            return rc ? rc
                      : rpl_error_set(RPL_EINPUT,
                                      "the accepted candidate's code object for %s "
                                      "does not build: %s",
                                      pk->arch, pipe_last_line(p->orig.log));
        }
        free(pk->orig_co);
        pk->orig_co = co;
        if ((rc = remeasure(p, pk, strcmp(pk->display, o->kernel) == 0 ? p->outcomes[i] : NULL)))
            return rc;
    }
    return rerank(p, o);
}
