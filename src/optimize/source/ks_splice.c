/*
 * Splicing a model's kernel into its file: the reply replaces exactly the
 * kernel's definition, the whole file is parsed again, and the result must
 * hold one definition of that kernel, with the same signature, where the
 * old one was, and the same kernels elsewhere.  Rejections are one line a
 * model can act on.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_internal.h"
#include "rpl/error.h"

int ks_replace_range(char **out, size_t *out_len, const char *text, size_t len, size_t begin,
                     size_t end, const char *repl, size_t repl_len)
{
    size_t n;
    char *s;

    *out = NULL;
    if (begin > end || end > len || repl_len > SIZE_MAX / 2 - len)
        return rpl_error_set(RPL_EUSAGE, "replacement range %zu-%zu outside the text", begin, end);
    n = len - (end - begin) + repl_len;
    s = malloc(n + 1);
    if (!s)
        return rpl_error_oom();
    memcpy(s, text, begin);
    if (repl_len)
        memcpy(s + begin, repl, repl_len);
    memcpy(s + begin + repl_len, text + end, len - end);
    s[n] = '\0';
    *out = s;
    *out_len = n;
    return 0;
}

int ks_kernel_index(const rpl_kernel_source *src, const rpl_ks_kernel *k, size_t *index)
{
    for (size_t i = 0; i < src->n_kernels; i++)
        if (&src->kernels[i] == k) {
            *index = i;
            return 0;
        }
    return rpl_error_set(RPL_EUSAGE, "the kernel given is not one of %s's", src->name);
}

static int reject(rpl_ks_splice_verdict *v, rpl_ks_splice_verdict kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A rejection: its kind in *v, its one line (the evidence) in the thread's error. */
static int reject(rpl_ks_splice_verdict *v, rpl_ks_splice_verdict kind, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    *v = kind;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return rpl_error_set(RPL_EINPUT, "%s", buf);
}

static bool inside(size_t off, size_t b, size_t e)
{
    return off >= b && off <= e;
}

static size_t errors_in(const rpl_kernel_source *s, size_t b, size_t e)
{
    size_t n = 0;

    for (size_t i = 0; i < s->n_diags; i++)
        n += s->diags[i].severity >= 3 && s->diags[i].in_main_file &&
             inside(s->diags[i].offset, b, e);
    return n;
}

/* Which kernels of the result lie in the reply, and how many of them are the target. */
static int check_kernels(const rpl_kernel_source *src, size_t ki, const rpl_kernel_source *res,
                         size_t rb, size_t re, size_t *target, rpl_ks_splice_verdict *v)
{
    const rpl_ks_kernel *k = &src->kernels[ki];
    size_t n_target = 0, n_outside = 0;
    const char *other = NULL;

    for (size_t i = 0; i < res->n_kernels; i++) {
        const rpl_ks_kernel *r = &res->kernels[i];
        bool b_in = inside(r->definition.begin, rb, re), e_in = inside(r->definition.end, rb, re);
        if (b_in != e_in || (r->definition.begin < rb && r->definition.end > re))
            return reject(v, RPL_KS_SPLICE_REPLY,
                          "the reply changes code outside the kernel (%s no longer ends where "
                          "it should: check its braces)",
                          r->qualified_name);
        if (!b_in) {
            /* The kernels around it must be the ones that were there. */
            size_t j = n_outside < ki ? n_outside : n_outside + 1;
            char *diff = NULL;
            if (j >= src->n_kernels || rpl_ks_signature_diff(&src->kernels[j], r, &diff) != 0) {
                free(diff);
                return reject(v, RPL_KS_SPLICE_REPLY,
                              "the reply changes code outside the kernel (kernel %s)",
                              r->qualified_name);
            }
            n_outside++;
        } else if (strcmp(r->qualified_name, k->qualified_name) == 0) {
            if (n_target++ == 0)
                *target = i;
        } else if (!other) {
            other = r->qualified_name;
        }
    }
    if (n_outside != src->n_kernels - 1)
        return reject(v, RPL_KS_SPLICE_REPLY,
                      "the reply changes code outside the kernel (a kernel after it is gone)");
    if (n_target == 0 && other)
        return reject(v, RPL_KS_SPLICE_REPLY, "the reply defines the kernel %s instead of %s",
                      other, k->qualified_name);
    if (n_target == 0)
        return reject(v, RPL_KS_SPLICE_REPLY, "the reply holds no __global__ definition of %s",
                      k->qualified_name);
    if (n_target > 1)
        return n_target == 2
                   ? reject(v, RPL_KS_SPLICE_REPLY, "the reply defines %s twice", k->qualified_name)
                   : reject(v, RPL_KS_SPLICE_REPLY, "the reply defines %s %zu times",
                            k->qualified_name, n_target);
    if (other)
        return reject(v, RPL_KS_SPLICE_REPLY,
                      "the reply also defines the kernel %s; return only %s", other,
                      k->qualified_name);
    return 0;
}

/* The line of the reply (counted from its first) that holds the file's line `line`. */
static unsigned reply_line(const rpl_kernel_source *res, size_t rb, unsigned line)
{
    unsigned first = 1;

    for (size_t j = 0; j < rb; j++)
        first += res->text[j] == '\n';
    return line >= first ? line - first + 1 : line;
}

/*
 * Errors the reply brought: a redefinition (the reply repeats code from
 * outside the kernel), or more errors in the reply than the old kernel had.
 * Errors elsewhere are checked after the signature (a changed signature
 * breaks the callers, and saying so is more useful).
 */
static int check_reply_errors(const rpl_kernel_source *src, size_t ki, const rpl_kernel_source *res,
                              size_t rb, size_t re, rpl_ks_splice_verdict *v)
{
    const rpl_ks_range *old = &src->kernels[ki].definition;
    size_t old_in = errors_in(src, old->begin, old->end), new_in = errors_in(res, rb, re);

    for (size_t i = 0; i < res->n_diags; i++) {
        const rpl_ks_diag *d = &res->diags[i];
        if (d->severity >= 3 && res->n_errors > src->n_errors &&
            strncmp(d->message, "redefinition of ", 16) == 0)
            return reject(v, RPL_KS_SPLICE_REPLY,
                          "the reply changes code outside the kernel: it has a %s", d->message);
    }
    for (size_t i = 0; new_in > old_in && i < res->n_diags; i++) {
        const rpl_ks_diag *d = &res->diags[i];
        if (d->severity >= 3 && d->in_main_file && inside(d->offset, rb, re))
            return reject(v, RPL_KS_SPLICE_PARSE, "the reply does not parse: line %u: %s",
                          reply_line(res, rb, d->line), d->message);
    }
    return 0;
}

static int check_other_errors(const rpl_kernel_source *src, size_t ki, const rpl_kernel_source *res,
                              size_t rb, size_t re, rpl_ks_splice_verdict *v)
{
    const rpl_ks_range *old = &src->kernels[ki].definition;
    size_t old_out = src->n_errors - errors_in(src, old->begin, old->end);
    size_t new_out = res->n_errors - errors_in(res, rb, re);

    for (size_t i = 0; new_out > old_out && i < res->n_diags; i++) {
        const rpl_ks_diag *d = &res->diags[i];
        if (d->severity < 3 || (d->in_main_file && inside(d->offset, rb, re)))
            continue;
        if (d->in_main_file)
            return reject(v, RPL_KS_SPLICE_CONTEXT,
                          "the reply breaks the code around the kernel: line %u: %s", d->line,
                          d->message);
        return reject(v, RPL_KS_SPLICE_CONTEXT,
                      "the reply breaks the code around the kernel: %s:%u: %s", d->file, d->line,
                      d->message);
    }
    return 0;
}

int rpl_kernel_source_splice(rpl_kernel_source **out, rpl_ks_splice_verdict *verdict,
                             const rpl_kernel_source *src, const rpl_ks_kernel *kernel,
                             const char *text, size_t len)
{
    rpl_ks_splice_verdict unused, *v = verdict ? verdict : &unused;
    rpl_kernel_source *res = NULL;
    char *joined = NULL, *diff = NULL;
    size_t ki, joined_len = 0, target = 0, rb, re;
    int rc;

    *out = NULL;
    *v = RPL_KS_SPLICE_OK;
    if ((rc = ks_kernel_index(src, kernel, &ki)) != 0)
        return rc;
    if (kernel->in_macro)
        return reject(v, RPL_KS_SPLICE_REPLY,
                      "kernel %s is written by a macro; it cannot be replaced",
                      kernel->qualified_name);
    if (len == 0 || strspn(text, " \t\r\n") >= len)
        return reject(v, RPL_KS_SPLICE_REPLY, "the reply is empty");
    if (memchr(text, '\0', len))
        return reject(v, RPL_KS_SPLICE_REPLY, "the reply holds a NUL byte");
    rb = kernel->definition.begin;
    re = rb + len;
    if ((rc = ks_replace_range(&joined, &joined_len, src->text, src->len, rb,
                               kernel->definition.end, text, len)) != 0)
        return rc;
    rc = ks_parse(&res, src->ctx, src->name, joined, joined_len);
    free(joined);
    if (rc != 0)
        return rc;
    if ((rc = check_kernels(src, ki, res, rb, re, &target, v)) != 0 ||
        (rc = check_reply_errors(src, ki, res, rb, re, v)) != 0)
        goto fail;
    if (rpl_ks_signature_diff(kernel, &res->kernels[target], &diff) != 0) {
        rc = diff ? reject(v, RPL_KS_SPLICE_SIGNATURE, "the reply changes the signature of %s: %s",
                           kernel->qualified_name, diff)
                  : rpl_error_oom();
        free(diff);
        goto fail;
    }
    if ((rc = check_other_errors(src, ki, res, rb, re, v)) != 0)
        goto fail;
    *out = res;
    return 0;
fail:
    rpl_kernel_source_free(res);
    return rc;
}

int rpl_kernel_source_apply_edits(rpl_kernel_source **out, rpl_ks_splice_verdict *verdict,
                                  const rpl_kernel_source *src, const rpl_ks_kernel *kernel,
                                  const rpl_search_replace *blocks, size_t n_blocks)
{
    char *region = NULL;
    size_t region_len = 0, ki;
    int rc;

    *out = NULL;
    if (verdict)
        *verdict = RPL_KS_SPLICE_OK;
    if ((rc = ks_kernel_index(src, kernel, &ki)) != 0)
        return rc;
    if ((rc = rpl_search_replace_apply(&region, &region_len, src->text, src->len,
                                       kernel->definition.begin, kernel->definition.end, blocks,
                                       n_blocks)) != 0) {
        if (verdict && rc == RPL_EINPUT) /* a block that does not apply */
            *verdict = RPL_KS_SPLICE_REPLY;
        return rc;
    }
    rc = rpl_kernel_source_splice(out, verdict, src, kernel, region, region_len);
    free(region);
    return rc;
}
