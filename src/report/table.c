/* The human summary of a profile: header lines and an aligned kernel table. */
#include <stdio.h>
#include <string.h>

#include "rpl/report.h"

#define NAME_WIDTH 40

const char *rpl_format_ns(char *buf, size_t cap, double ns)
{
    if (ns < 1e3)
        snprintf(buf, cap, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, cap, "%.2f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, cap, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, cap, "%.3f s", ns / 1e9);
    return buf;
}

static const char *format_bytes(char *buf, size_t cap, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;

    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

/* Offset of the parameter list: the first '(' outside template arguments and "(anonymous
 * namespace)". */
static size_t params_at(const char *name)
{
    static const char anon[] = "(anonymous namespace)";
    size_t depth = 0, i;

    for (i = 0; name[i]; i++) {
        if (name[i] == '<')
            depth++;
        else if (name[i] == '>' && depth > 0)
            depth--;
        else if (name[i] == '(' && depth == 0 && strncmp(name + i, anon, sizeof(anon) - 1) != 0)
            break;
    }
    return i;
}

/*
 * A kernel name that fits NAME_WIDTH: the display name when it fits; else
 * without return type and with "(...)" for the parameters (template
 * arguments tell instances apart); else the short name with "<...>" and
 * "(...)", cut at the front when still too long (the function name is at the
 * end, namespaces at the front).
 */
static int fit_name(rpl_strbuf *out, const rpl_kernel_summary *k)
{
    const char *name = k->name;
    size_t params = params_at(name);
    int rc;

    rpl_strbuf_reset(out);
    if (strlen(name) <= NAME_WIDTH)
        return rpl_strbuf_puts(out, name);
    if (strncmp(name, "void ", 5) == 0) {
        name += 5;
        params -= 5;
    }
    if (params + (name[params] ? 5 : 0) <= NAME_WIDTH) {
        rc = rpl_strbuf_put(out, name, params);
        return rc || !name[params] ? rc : rpl_strbuf_puts(out, "(...)");
    }
    rc = rpl_kernel_short_name(out, k->mangled_name, k->name);
    if (!rc && memchr(name, '<', params))
        rc = rpl_strbuf_puts(out, "<...>");
    if (!rc && name[params])
        rc = rpl_strbuf_puts(out, "(...)");
    if (!rc && out->len > NAME_WIDTH) {
        size_t keep = NAME_WIDTH - 3;
        memmove(out->ptr + 3, out->ptr + out->len - keep, keep);
        memcpy(out->ptr, "...", 3);
        out->len = NAME_WIDTH;
        out->ptr[out->len] = '\0';
    }
    return rc;
}

static int put_header(rpl_strbuf *out, const rpl_profile *p)
{
    const rpl_profile_totals *t = &p->totals;
    const rpl_agent *a = rpl_profile_primary_agent(p);
    double span = (double)(t->span_end_ns - t->span_start_ns);
    char b1[32], b2[32], b3[32];
    int rc = 0;

    if (a) {
        rc = rpl_strbuf_printf(out, "device:     %s (%s",
                               a->product_name[0] ? a->product_name : a->name, a->name);
        if (!rc && a->cu_count)
            rc = rpl_strbuf_printf(out, ", %u CUs", a->cu_count);
        if (!rc && a->max_engine_clk_mhz > 0)
            rc = rpl_strbuf_printf(out, ", %.0f MHz", a->max_engine_clk_mhz);
        if (!rc && a->wave_front_size)
            rc = rpl_strbuf_printf(out, ", wave%u", a->wave_front_size);
        if (!rc)
            rc = rpl_strbuf_puts(out, p->ndevices > 1 ? ", and more GPUs)\n" : ")\n");
    } else {
        rc = rpl_strbuf_puts(out, "device:     no GPU agent in the trace\n");
    }
    if (!rc)
        rc = rpl_strbuf_printf(out,
                               "dispatches: %llu selected of %llu, %u kernels of %u\n"
                               "span:       %s, GPU busy %s (%.1f%%), selected kernel time %s\n",
                               (unsigned long long)t->selected_dispatches,
                               (unsigned long long)t->dispatches, t->selected_kernels, t->kernels,
                               rpl_format_ns(b1, sizeof(b1), span),
                               rpl_format_ns(b2, sizeof(b2), (double)t->busy_ns),
                               span > 0 ? 100.0 * (double)t->busy_ns / span : 0.0,
                               rpl_format_ns(b3, sizeof(b3), (double)t->selected_time_ns));
    return rc;
}

static int put_row(rpl_strbuf *out, rpl_strbuf *name, size_t rank, const rpl_kernel_summary *k)
{
    const rpl_duration_stats *s = &k->stats;
    char total[32], median[32], mean[32], cv[16];
    int rc = fit_name(name, k);

    if (rc)
        return rc;
    /* One dispatch has no spread: CV and class would only say "stable" by definition. */
    if (s->count < 2)
        snprintf(cv, sizeof(cv), "-");
    else
        snprintf(cv, sizeof(cv), "%.3f", s->cv);
    return rpl_strbuf_printf(out, "%3zu  %-*s %10llu %11s %6.1f%% %11s %11s %6s  %s%s\n", rank,
                             NAME_WIDTH, rpl_strbuf_cstr(name), (unsigned long long)s->count,
                             rpl_format_ns(total, sizeof(total), (double)k->total_ns),
                             100.0 * k->share, rpl_format_ns(median, sizeof(median), s->median),
                             rpl_format_ns(mean, sizeof(mean), s->mean), cv,
                             s->count < 2 ? "-" : rpl_stability_name(s->stability),
                             k->helper ? " (helper)" : "");
}

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

static int put_footer(rpl_strbuf *out, const rpl_profile *p, size_t shown)
{
    const rpl_profile_totals *t = &p->totals;
    char b1[32], b2[32];
    int rc = 0;

    if (shown < p->nkernels) {
        double rest = 0;
        for (size_t i = shown; i < p->nkernels; i++)
            rest += p->kernels[i].share;
        rc = rpl_strbuf_printf(
            out, "     ... %zu more kernel%s (%.1f%% of the time); --top 0 shows all\n",
            (size_t)p->nkernels - shown, plural(p->nkernels - shown), 100.0 * rest);
    }
    if (!rc && !p->include_helpers && t->helper_dispatches)
        rc = rpl_strbuf_printf(out,
                               "runtime helpers left out: %u kernel%s, %llu dispatch%s, %s "
                               "(--include-helpers keeps them)\n",
                               t->helper_kernels, plural(t->helper_kernels),
                               (unsigned long long)t->helper_dispatches,
                               t->helper_dispatches == 1 ? "" : "es",
                               rpl_format_ns(b1, sizeof(b1), (double)t->helper_time_ns));
    if (!rc && t->copies.count)
        rc = rpl_strbuf_printf(out, "memory copies: %llu, %s, %s\n",
                               (unsigned long long)t->copies.count,
                               format_bytes(b1, sizeof(b1), (double)t->copies.bytes),
                               rpl_format_ns(b2, sizeof(b2), (double)t->copies.time_ns));
    return rc;
}

int rpl_profile_table(rpl_strbuf *out, const rpl_profile *p, size_t top)
{
    rpl_strbuf name = RPL_STRBUF_INIT;
    size_t shown = top == 0 || top > p->nkernels ? p->nkernels : top;
    int rc = put_header(out, p);

    if (!rc)
        rc = rpl_strbuf_printf(out, "\n%3s  %-*s %10s %11s %7s %11s %11s %6s  %s\n", "#",
                               NAME_WIDTH, "kernel", "dispatches", "total", "share", "median",
                               "mean", "cv", "stability");
    for (size_t i = 0; !rc && i < shown; i++)
        rc = put_row(out, &name, i + 1, &p->kernels[i]);
    if (!rc)
        rc = put_footer(out, p, shown);
    rpl_strbuf_release(&name);
    return rc;
}
