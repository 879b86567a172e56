/*
 * The unroll transform: the factor the guardrails allow, and the edit that
 * puts `#pragma unroll N` before a loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_internal.h"
#include "rpl/error.h"

#define MIN_FACTOR 2
#define MAX_FACTOR 8

int rpl_ks_unroll_factor(const rpl_ks_loop *l, unsigned wave_size, unsigned wish, unsigned *factor)
{
    *factor = 0;
    if (wave_size != 32 && wave_size != 64)
        return rpl_error_set(RPL_EUSAGE, "wavefront size %u: expected 32 or 64", wave_size);
    if (wish != 0 && (wish < MIN_FACTOR || wish > MAX_FACTOR))
        return rpl_error_set(RPL_EUSAGE, "unroll factor %u: expected %d to %d", wish, MIN_FACTOR,
                             MAX_FACTOR);
    if (l->in_macro)
        return rpl_error_set(RPL_EINPUT, "loop %u (line %u) comes from a macro expansion", l->index,
                             l->range.line_begin);
    if (l->blocker)
        return rpl_error_set(RPL_EINPUT, "loop %u (line %u) %s", l->index, l->range.line_begin,
                             l->blocker);
    /* The same elements per wave on both sizes: 4 x 64 lanes = 8 x 32 lanes. */
    if (wish == 0)
        wish = 256 / wave_size;
    if (l->trip_count_known) {
        if (l->trip_count < MIN_FACTOR)
            return rpl_error_set(
                RPL_EINPUT, "loop %u (line %u) runs %lld time%s: nothing to unroll", l->index,
                l->range.line_begin, (long long)l->trip_count, l->trip_count == 1 ? "" : "s");
        for (unsigned f = wish; f >= MIN_FACTOR; f--)
            if (l->trip_count % f == 0) {
                *factor = f;
                return 0;
            }
        return rpl_error_set(
            RPL_EINPUT, "loop %u (line %u) runs %lld times: no factor from %d to %u divides it",
            l->index, l->range.line_begin, (long long)l->trip_count, MIN_FACTOR, wish);
    }
    *factor = 1;
    while (*factor * 2 <= wish)
        *factor *= 2;
    return 0;
}

/* The blanks that indent the line holding `offset`. */
static size_t indent_of(const char *text, size_t offset, size_t *line_start)
{
    size_t s = offset, n = 0;

    while (s > 0 && text[s - 1] != '\n')
        s--;
    while (s + n < offset && (text[s + n] == ' ' || text[s + n] == '\t'))
        n++;
    *line_start = s;
    return n;
}

/* The edited text: the pragma replaced, or a new pragma line before the loop. */
static int pragma_edit(const rpl_kernel_source *src, const rpl_ks_loop *l, unsigned factor,
                       char **out, size_t *out_len)
{
    char line[256];
    size_t start, indent = indent_of(src->text, l->range.begin, &start);
    int n;

    if (l->pragma_unroll != RPL_KS_PRAGMA_NONE) {
        bool operator_form = strncmp(src->text + l->pragma.begin, "_Pragma", 7) == 0;
        n = snprintf(line, sizeof(line),
                     operator_form ? "_Pragma(\"unroll %u\")" : "#pragma unroll %u", factor);
        return ks_replace_range(out, out_len, src->text, src->len, l->pragma.begin, l->pragma.end,
                                line, (size_t)n);
    }
    if (indent > sizeof(line) - 64)
        indent = 0;
    if (start + indent == l->range.begin) {
        /* The loop starts its line: a pragma line above it, indented the same. */
        n = snprintf(line, sizeof(line), "%.*s#pragma unroll %u\n", (int)indent, src->text + start,
                     factor);
        return ks_replace_range(out, out_len, src->text, src->len, start, start, line, (size_t)n);
    }
    /* Something precedes the loop on its line (`if (c) for`): break the line there,
       dropping the blanks before the loop. */
    size_t cut = l->range.begin;
    while (cut > start + indent && (src->text[cut - 1] == ' ' || src->text[cut - 1] == '\t'))
        cut--;
    n = snprintf(line, sizeof(line), "\n%.*s#pragma unroll %u\n%.*s", (int)indent,
                 src->text + start, factor, (int)indent, src->text + start);
    return ks_replace_range(out, out_len, src->text, src->len, cut, l->range.begin, line,
                            (size_t)n);
}

/* The result holds the same kernels with the same signatures, and the pragma. */
static int check_unrolled(const rpl_kernel_source *src, const rpl_kernel_source *res, size_t ki,
                          unsigned loop_index, unsigned factor)
{
    char *diff = NULL;

    if (res->n_kernels != src->n_kernels)
        return rpl_error_set(RPL_ERROR, "unrolling changed the kernels of %s (%zu became %zu)",
                             src->name, src->n_kernels, res->n_kernels);
    for (size_t i = 0; i < src->n_kernels; i++)
        if (rpl_ks_signature_diff(&src->kernels[i], &res->kernels[i], &diff) != 0) {
            int rc = rpl_error_set(RPL_ERROR, "unrolling changed kernel %s: %s",
                                   src->kernels[i].qualified_name, diff ? diff : "no memory");
            free(diff);
            return rc;
        }
    if (res->n_errors > src->n_errors)
        return rpl_error_set(RPL_ERROR, "the unrolled %s does not parse: %s", src->name,
                             res->n_diags ? res->diags[0].message : "errors");
    const rpl_ks_kernel *k = &res->kernels[ki];
    if (loop_index >= k->n_loops || k->loops[loop_index].pragma_unroll != (int)factor)
        return rpl_error_set(RPL_ERROR, "the pragma did not attach to loop %u of %s", loop_index,
                             k->qualified_name);
    return 0;
}

int rpl_kernel_source_unroll(rpl_kernel_source **out, const rpl_kernel_source *src,
                             const rpl_ks_kernel *kernel, unsigned loop_index, unsigned factor)
{
    rpl_kernel_source *res = NULL;
    const rpl_ks_loop *l;
    char *text = NULL;
    size_t ki, len = 0;
    int rc;

    *out = NULL;
    if ((rc = ks_kernel_index(src, kernel, &ki)) != 0)
        return rc;
    if (factor < MIN_FACTOR || factor > MAX_FACTOR)
        return rpl_error_set(RPL_EUSAGE, "unroll factor %u: expected %d to %d", factor, MIN_FACTOR,
                             MAX_FACTOR);
    if (loop_index >= kernel->n_loops)
        return rpl_error_set(RPL_ENOTFOUND, "kernel %s has %zu loop%s, no loop %u",
                             kernel->qualified_name, kernel->n_loops,
                             kernel->n_loops == 1 ? "" : "s", loop_index);
    l = &kernel->loops[loop_index];
    if (kernel->in_macro || l->in_macro)
        return rpl_error_set(RPL_EINPUT, "loop %u of %s comes from a macro expansion", loop_index,
                             kernel->qualified_name);
    if ((rc = pragma_edit(src, l, factor, &text, &len)) != 0)
        return rc;
    rc = ks_parse(&res, src->ctx, src->name, text, len);
    free(text);
    if (rc == 0 && (rc = check_unrolled(src, res, ki, loop_index, factor)) != 0) {
        rpl_kernel_source_free(res);
        res = NULL;
    }
    *out = res;
    return rc;
}

const char *rpl_ks_loop_kind_name(rpl_ks_loop_kind kind)
{
    switch (kind) {
    case RPL_KS_LOOP_FOR:
        return "for";
    case RPL_KS_LOOP_WHILE:
        return "while";
    case RPL_KS_LOOP_DO:
        return "do";
    case RPL_KS_LOOP_RANGE_FOR:
        return "range-for";
    }
    return "unknown";
}
