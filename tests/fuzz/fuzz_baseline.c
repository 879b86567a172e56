/*
 * libFuzzer target for baseline files (docs/schemas/baseline.schema.json):
 * the input bytes are parsed as a baseline.  Checked on the way: a baseline
 * that is accepted holds only timings in (0, RPL_BASELINE_MAX_NS], at least
 * one sample per runtime kernel and no more history than kept; what the
 * writer prints of it is accepted again, with the same kernels and samples.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_timings(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] > 0 && v[i] <= RPL_BASELINE_MAX_NS))
            abort();
}

static void check_same(const rpl_baseline *a, const rpl_baseline *b)
{
    if (a->nkernels != b->nkernels || a->nstatics != b->nstatics)
        abort();
    for (size_t i = 0; i < a->nkernels; i++) {
        const rpl_runtime_kernel *x = &a->kernels[i], *y = &b->kernels[i];
        if (strcmp(x->name, y->name) != 0 || x->nsamples != y->nsamples ||
            memcmp(x->samples, y->samples, x->nsamples * sizeof(double)) != 0)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rpl_baseline *b = NULL, *again = NULL;
    char *text = NULL;

    if (rpl_baseline_parse(&b, (const char *)data, size, "fuzz") != 0) {
        if (b)
            abort(); /* a refused file hands nothing back */
        return 0;
    }
    for (size_t i = 0; i < b->nkernels; i++) {
        const rpl_runtime_kernel *k = &b->kernels[i];
        if (k->nsamples == 0 || k->nhistory > RPL_BASELINE_HISTORY_MAX)
            abort();
        check_timings(k->samples, k->nsamples);
        check_timings(k->history, k->nhistory);
    }
    if (rpl_baseline_print(&text, b) != 0 || rpl_baseline_parse(&again, text, strlen(text), "x"))
        abort(); /* what we write, we read back */
    check_same(b, again);
    free(text);
    rpl_baseline_free(again);
    rpl_baseline_free(b);
    return 0;
}
