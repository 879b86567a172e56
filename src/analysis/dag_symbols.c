/* DAG builder: the symbols (kernels by display name, copies by name) and each operation's. */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/error.h"
#include "rpl/free.h"

typedef struct sym_key {
    const char *name;
    const char *mangled;
    uint8_t kind;
    uint32_t group;
} sym_key;

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const sym_key *)a)->name, y = (uintptr_t)((const sym_key *)b)->name;

    return x < y ? -1 : x > y;
}

static int cmp_sym_name(const void *a, const void *b)
{
    const sym_key *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : (x->kind > y->kind) - (x->kind < y->kind);
}

static const char *kernel_display(const rpl_kernel_symbol *s)
{
    return s->display_name && s->display_name[0] ? s->display_name : (s->name ? s->name : "");
}

/* Index of `name` in keys[0..n) sorted by pointer. */
static uint32_t find_ptr(const sym_key *keys, uint32_t n, const char *name)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if ((uintptr_t)keys[mid].name < (uintptr_t)name)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Deduplicate keys[0..n) by pointer (after sorting); returns the new count. */
static uint32_t unique_ptrs(sym_key *keys, uint32_t n)
{
    uint32_t m = 0;

    qsort(keys, n, sizeof(*keys), cmp_ptr);
    for (uint32_t i = 0; i < n; i++)
        if (m == 0 || keys[m - 1].name != keys[i].name)
            keys[m++] = keys[i];
    return m;
}

/*
 * Symbols: kernels grouped by display name, copies by copy name (interned
 * strings, so equal names are equal pointers).  Each operation's
 * symbol field becomes its symbol index; symbols end up sorted by name.
 */
int rpl_dag_build_symbols(rpl_dag_builder *b, rpl_dag_op *ops, uint32_t nops)
{
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    uint32_t nk = 0, nc = 0, ndisp = t->dispatches.count, *remap = NULL, *of_kernel = NULL;
    sym_key *kern = malloc(((size_t)t->symbols.count + 1) * sizeof(*kern));
    sym_key *copy = malloc(((size_t)t->memcpys.count + 1) * sizeof(*copy));
    sym_key *all = NULL;
    int rc = 0;

    of_kernel = malloc(((size_t)t->symbols.count + 1) * sizeof(*of_kernel));
    if (!kern || !copy || !of_kernel) {
        rc = rpl_error_oom();
        goto done;
    }
    /* Only symbols that were dispatched: a code object lists many more. */
    for (uint32_t k = 0; k < t->symbols.count; k++)
        of_kernel[k] = RPL_NONE;
    for (uint32_t i = 0; i < ndisp; i++)
        of_kernel[ops[i].symbol] = 0;
    for (uint32_t k = 0; k < t->symbols.count; k++) {
        const rpl_kernel_symbol *s = &t->symbols.items[k];

        if (of_kernel[k] == 0)
            kern[nk++] =
                (sym_key){kernel_display(s), s->name ? s->name : "", RPL_DAG_NODE_DISPATCH, 0};
    }
    for (uint32_t i = 0; i < t->memcpys.count; i++) {
        const char *name = t->memcpys.items[i].name ? t->memcpys.items[i].name : "";

        if (nc == 0 || copy[nc - 1].name != name)
            copy[nc++] = (sym_key){name, "", RPL_DAG_NODE_COPY, 0};
    }
    nk = unique_ptrs(kern, nk);
    nc = unique_ptrs(copy, nc);
    all = malloc(((size_t)nk + nc + 1) * sizeof(*all));
    remap = malloc(((size_t)nk + nc + 1) * sizeof(*remap));
    dag->symbols = calloc((size_t)nk + nc + 1, sizeof(*dag->symbols));
    if (!all || !remap || !dag->symbols) {
        rc = rpl_error_oom();
        goto done;
    }
    for (uint32_t i = 0; i < nk + nc; i++) {
        all[i] = i < nk ? kern[i] : copy[i - nk];
        all[i].group = i;
    }
    qsort(all, nk + nc, sizeof(*all), cmp_sym_name);
    for (uint32_t i = 0; i < nk + nc; i++) {
        rpl_dag_symbol *s = &dag->symbols[i];

        remap[all[i].group] = i;
        s->name = all[i].name;
        s->mangled = all[i].mangled;
        s->kind = all[i].kind;
        s->helper = s->kind == RPL_DAG_NODE_DISPATCH &&
                    rpl_kernel_filter_is_helper(b->filter, s->mangled, s->name);
        s->headroom = 1.0;
        s->min_slack_ns = INT64_MAX;
    }
    dag->symbol_count = nk + nc;
    for (uint32_t k = 0; k < t->symbols.count; k++)
        if (of_kernel[k] == 0)
            of_kernel[k] = remap[find_ptr(kern, nk, kernel_display(&t->symbols.items[k]))];
    for (uint32_t i = 0; i < ndisp; i++)
        ops[i].symbol = of_kernel[ops[i].symbol];
    for (uint32_t i = ndisp; i < nops; i++) {
        const char *name = t->memcpys.items[i - ndisp].name;

        ops[i].symbol = remap[nk + find_ptr(copy, nc, name ? name : "")];
    }
done:
    RPL_FREE_EACH(of_kernel, kern, copy, all, remap);
    return rc;
}
