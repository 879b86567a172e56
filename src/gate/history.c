/*
 * The baseline's run history: one entry per recorded run of the runtime
 * section, with the commit, date, device, driver and GPU state, kept for
 * `baseline trend` and the HTML report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rpl/baseline.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/git_head.h"

void rpl_history_entry_release(rpl_history_entry *e)
{
    RPL_FREE_EACH(e->date, e->commit, e->device, e->driver, e->accepted);
    for (size_t i = 0; i < e->nmedians; i++)
        free(e->medians[i].name);
    free(e->medians);
    memset(e, 0, sizeof(*e));
}

/* HEAD of the repository holding file `path`'s folder, or NULL when there is none (not an error).
 */
static int head_commit(char **out, const char *path)
{
    char *dir = strdup(path), *slash;
    int rc;

    if (!dir)
        return rpl_error_oom();
    if ((slash = strrchr(dir, '/')) != NULL)
        slash[slash == dir] = '\0';
    else
        strcpy(dir, ".");
    rc = rpl_git_head_commit(out, dir);
    free(dir);
    return rc;
}

static int dup_or_null(char **out, const char *s)
{
    *out = s ? strdup(s) : NULL;
    return !s || *out ? 0 : rpl_error_oom();
}

static int fill_entry(rpl_history_entry *e, const rpl_baseline *b, const char *path,
                      const rpl_gpu_state *gpu, const char *reason)
{
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    int rc;

    gmtime_r(&now, &tm);
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if ((rc = dup_or_null(&e->date, date)) || (rc = head_commit(&e->commit, path)) ||
        (rc = dup_or_null(&e->device, b->device)) || (rc = dup_or_null(&e->driver, b->driver)) ||
        (rc = dup_or_null(&e->accepted, reason)))
        return rc;
    if (gpu)
        e->gpu = *gpu;
    if (!(e->medians = calloc(b->nkernels + 1, sizeof(*e->medians))))
        return rpl_error_oom();
    for (size_t i = 0; i < b->nkernels; i++) {
        if (!(e->medians[i].name = strdup(b->kernels[i].name)))
            return rpl_error_oom();
        e->medians[i].value = b->kernels[i].stats.median;
        e->nmedians++;
    }
    return 0;
}

int rpl_baseline_record_run(rpl_baseline *b, const char *baseline_path, const rpl_gpu_state *gpu,
                            const char *reason)
{
    rpl_history_entry e = {0}, *n;
    int rc = fill_entry(&e, b, baseline_path, gpu, reason);

    if (rc != 0) {
        rpl_history_entry_release(&e);
        return rc;
    }
    if (b->nruns == RPL_BASELINE_RUNS_MAX) {
        rpl_history_entry_release(&b->runs[0]);
        memmove(b->runs, b->runs + 1, (b->nruns - 1) * sizeof(*b->runs));
        b->nruns--;
    }
    if (!(n = realloc(b->runs, (b->nruns + 1) * sizeof(*n)))) {
        rpl_history_entry_release(&e);
        return rpl_error_oom();
    }
    b->runs = n;
    b->runs[b->nruns++] = e;
    if (reason)
        for (size_t i = 0; i < b->nkernels; i++)
            if (b->kernels[i].nhistory > 1) {
                rpl_runtime_kernel *k = &b->kernels[i];
                k->history[0] = k->history[k->nhistory - 1];
                k->nhistory = 1;
            }
    return 0;
}

const rpl_gpu_state *rpl_baseline_last_gpu_state(const rpl_baseline *b)
{
    for (size_t i = b->nruns; i-- > 0;)
        if (b->runs[i].gpu.valid)
            return &b->runs[i].gpu;
    return NULL;
}
