/* The human summary of a profile: header lines and an aligned kernel table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/kernel_filter.h"
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

static int put_header(rpl_strbuf *out, const rpl_profile *p)
{
    const rpl_profile_totals *t = &p->totals;
    const rpl_agent *a = rpl_profile_primary_agent(p);
    double span = (double)(t->span_end_ns - t->span_start_ns);
    char b1[32], b2[32], b3[32];
    int rc = 0;

    if (a && !a->product_name[0] && !a->name[0]) {
        /* A CSV import without agent_info: the trace has the agent's id and nothing more. */
        rc = rpl_strbuf_printf(out,
                               "device:     unknown device (GPU agent %d; the trace does "
                               "not describe it)\n",
                               a->logical_index);
    } else if (a) {
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

static int put_row(rpl_strbuf *out, const char *label, size_t rank, const rpl_kernel_summary *k)
{
    const rpl_duration_stats *s = &k->stats;
    char total[32], median[32], mean[32], cv[16];
    /* printf pads bytes; a label's "…" is three bytes in one column. */
    int pad = NAME_WIDTH + (int)(strlen(label) - rpl_utf8_columns(label));

    /* One dispatch has no spread: CV and class would only say "stable" by definition. */
    if (s->count < 2)
        snprintf(cv, sizeof(cv), "-");
    else
        snprintf(cv, sizeof(cv), "%.3f", s->cv);
    return rpl_strbuf_printf(
        out, "%3zu  %-*s %10llu %11s %6.1f%% %11s %11s %6s  %s%s\n", rank, pad, label,
        (unsigned long long)s->count, rpl_format_ns(total, sizeof(total), (double)k->total_ns),
        100.0 * k->share, rpl_format_ns(median, sizeof(median), s->median),
        rpl_format_ns(mean, sizeof(mean), s->mean), cv,
        s->count < 2 ? "-" : rpl_stability_name(s->stability), k->helper ? " (helper)" : "");
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
    size_t shown = top == 0 || top > p->nkernels ? p->nkernels : top;
    const char **names = calloc(shown ? shown : 1, sizeof(*names));
    char **labels = NULL;
    int rc = names ? 0 : rpl_error_oom();

    for (size_t i = 0; i < shown && names; i++)
        names[i] = p->kernels[i].name;
    if (!rc)
        rc = rpl_kernel_labels(&labels, names, shown, NAME_WIDTH);
    if (!rc)
        rc = put_header(out, p);
    if (!rc)
        rc = rpl_strbuf_printf(out, "\n%3s  %-*s %10s %11s %7s %11s %11s %6s  %s\n", "#",
                               NAME_WIDTH, "kernel", "dispatches", "total", "share", "median",
                               "mean", "cv", "stability");
    for (size_t i = 0; !rc && i < shown; i++)
        rc = put_row(out, labels[i], i + 1, &p->kernels[i]);
    if (!rc)
        rc = put_footer(out, p, shown);
    rpl_kernel_labels_free(labels, shown);
    free(names);
    return rc;
}

int rpl_counter_sample_line(rpl_strbuf *out, const rpl_counter_sample *s)
{
    char rule[128], skip[48] = "";

    if (s->per_kernel == 0) /* the rule is not known: only the count */
        return rpl_strbuf_printf(out, "counters: measured on %llu of %llu dispatches\n",
                                 (unsigned long long)s->measured,
                                 (unsigned long long)s->dispatches);
    if (s->skip)
        snprintf(skip, sizeof(skip), " after the first %u", s->skip);
    if (s->per_kernel == UINT32_MAX)
        snprintf(rule, sizeof(rule), "every dispatch of each kernel%s", skip);
    else
        snprintf(rule, sizeof(rule), "%u dispatch%s of each kernel%s", s->per_kernel,
                 s->per_kernel == 1 ? "" : "es", skip);
    return rpl_strbuf_printf(out,
                             "counters: measured on %llu of %llu dispatches (%s%s; see "
                             "--counter-dispatches and --counter-skip)\n",
                             (unsigned long long)s->measured, (unsigned long long)s->dispatches,
                             rule,
                             s->stopped_early ? "; the counter run ended once they were" : "");
}
