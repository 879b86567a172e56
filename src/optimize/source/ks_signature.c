/*
 * Kernel signatures: the one-line form and the comparison the splice and
 * the optimizer use.  Parameter names are not compared: they are not part
 * of the ABI and a model may rename them.  Types are compared as the ABI
 * sees them (canonical, decayed, top-level qualifiers dropped), so
 * `const float *__restrict` and `const float* __restrict__` are equal, and
 * so are `float m[4][4]` and `float (*m)[4]`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_internal.h"
#include "rpl/error.h"
#include "rpl/strbuf.h"

static const char *tparam_kind(const rpl_ks_tparam *t)
{
    switch (t->kind) {
    case RPL_KS_TPARAM_TYPE:
        return "typename";
    case RPL_KS_TPARAM_VALUE:
        return t->type ? t->type : "value";
    case RPL_KS_TPARAM_TEMPLATE:
        return "template";
    }
    return "?";
}

int rpl_ks_kernel_signature(const rpl_ks_kernel *k, char **out)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    *out = NULL;
    if (k->extern_c)
        rc = rpl_strbuf_puts(&sb, "extern \"C\" ");
    if (!rc && k->is_template) {
        rc = rpl_strbuf_puts(&sb, "template <");
        for (size_t i = 0; !rc && i < k->n_tparams; i++)
            rc = rpl_strbuf_printf(&sb, "%s%s %s", i ? ", " : "", tparam_kind(&k->tparams[i]),
                                   k->tparams[i].name);
        if (!rc)
            rc = rpl_strbuf_puts(&sb, "> ");
    }
    if (!rc)
        rc = rpl_strbuf_printf(&sb, "%s(", k->qualified_name);
    for (size_t i = 0; !rc && i < k->n_params; i++)
        rc = rpl_strbuf_printf(&sb, "%s%s", i ? ", " : "", k->params[i].type);
    if (!rc)
        rc = rpl_strbuf_putc(&sb, ')');
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

static int differ(char **diff, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int differ(char **diff, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    *diff = strdup(buf);
    if (!*diff)
        return rpl_error_oom();
    return rpl_error_set(RPL_EFAIL, "%s", buf);
}

int rpl_ks_signature_diff(const rpl_ks_kernel *a, const rpl_ks_kernel *b, char **diff)
{
    *diff = NULL;
    if (strcmp(a->qualified_name, b->qualified_name) != 0)
        return differ(diff, "the name '%s' became '%s'", a->qualified_name, b->qualified_name);
    if (a->extern_c != b->extern_c)
        return differ(diff, "extern \"C\" was %s", a->extern_c ? "dropped" : "added");
    if (a->is_template != b->is_template)
        return differ(diff, "%s",
                      a->is_template ? "it is no longer a template" : "it became a template");
    if (a->n_tparams != b->n_tparams)
        return differ(diff, "the template parameters went from %zu to %zu", a->n_tparams,
                      b->n_tparams);
    for (size_t i = 0; i < a->n_tparams; i++) {
        const rpl_ks_tparam *x = &a->tparams[i], *y = &b->tparams[i];
        if (x->kind != y->kind || (x->kind == RPL_KS_TPARAM_VALUE &&
                                   strcmp(x->type ? x->type : "", y->type ? y->type : "") != 0))
            return differ(diff, "template parameter %zu: '%s %s' became '%s %s'", i + 1,
                          tparam_kind(x), x->name, tparam_kind(y), y->name);
    }
    if (a->n_params != b->n_params)
        return differ(diff, "the parameters went from %zu to %zu", a->n_params, b->n_params);
    for (size_t i = 0; i < a->n_params; i++) {
        const rpl_ks_param *x = &a->params[i], *y = &b->params[i];
        if (strcmp(x->canonical, y->canonical) == 0)
            continue;
        /* Show the spelling when it tells the difference, else the ABI view. */
        if (strcmp(x->type, y->type) != 0)
            return differ(diff, "parameter %zu: '%s' became '%s'", i + 1, x->type, y->type);
        return differ(diff, "parameter %zu: '%s' became '%s'", i + 1, x->canonical, y->canonical);
    }
    if (a->mangled && b->mangled && strcmp(a->mangled, b->mangled) != 0)
        return differ(diff, "the device symbol '%s' became '%s'", a->mangled, b->mangled);
    return 0;
}
