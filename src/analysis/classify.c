/*
 * Rule-based bottleneck classifier.  Each class gets a score in [0, 1] from
 * its own rule and records the facts it used; the highest score wins and is
 * the confidence.  Scores below 0.2 everywhere give "unknown".
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rpl/classify.h"

#define PER_CLASS 4

static const char *const names[RPL_BN_COUNT] = {"unknown",        "memory_bandwidth", "latency",
                                                "under_occupied", "divergence",       "compute",
                                                "launch_overhead"};

const char *rpl_bottleneck_name(rpl_bottleneck b)
{
    return (unsigned)b < RPL_BN_COUNT ? names[b] : "unknown";
}

typedef struct work {
    double score[RPL_BN_COUNT];
    char ev[RPL_BN_COUNT][PER_CLASS][RPL_CLS_EVIDENCE_LEN];
    size_t nev[RPL_BN_COUNT];
} work;

static void score(work *w, rpl_bottleneck b, double s)
{
    if (s > 1)
        s = 1;
    if (s > w->score[b])
        w->score[b] = s;
}

__attribute__((format(printf, 3, 4))) static void evidence(work *w, rpl_bottleneck b,
                                                           const char *fmt, ...)
{
    va_list ap;

    if (w->nev[b] == PER_CLASS)
        return;
    va_start(ap, fmt);
    vsnprintf(w->ev[b][w->nev[b]++], RPL_CLS_EVIDENCE_LEN, fmt, ap);
    va_end(ap);
}

static double ramp(double x, double lo, double hi)
{
    return x <= lo ? 0 : x >= hi ? 1 : (x - lo) / (hi - lo);
}

static void launch_rule(work *w, const rpl_cls_input *in)
{
    double d = in->mean_duration_ns;
    rpl_bottleneck b = RPL_BN_LAUNCH_OVERHEAD;

    if (d <= 0 || d >= RPL_CLS_SHORT_KERNEL_NS)
        return;
    evidence(w, b, "mean dispatch duration %.2f us is below %.0f us", d / 1e3,
             RPL_CLS_SHORT_KERNEL_NS / 1e3);
    if (d < RPL_CLS_TINY_KERNEL_NS) {
        score(w, b, 0.85);
        evidence(w, b, "below %.0f us a launch costs about as much as the work",
                 RPL_CLS_TINY_KERNEL_NS / 1e3);
    } else {
        score(w, b, 0.4);
    }
    if (in->mean_gap_ns >= RPL_CLS_GAP_RATIO * d) {
        score(w, b, w->score[b] + 0.25);
        evidence(w, b, "mean idle gap before a dispatch %.2f us (%.0f%% of its duration)",
                 in->mean_gap_ns / 1e3, 100.0 * in->mean_gap_ns / d);
    }
    if (in->dispatches > 1)
        evidence(w, b, "%u dispatches", in->dispatches);
}

static void occupancy_rule(work *w, const rpl_cls_input *in)
{
    rpl_bottleneck b = RPL_BN_UNDER_OCCUPIED;
    double slots = (double)in->cu_count * in->max_waves_per_cu;
    double waves = in->workgroups * (in->waves_per_group ? in->waves_per_group : 1);

    if (in->cu_count && in->workgroups > 0 && in->workgroups < in->cu_count) {
        score(w, b, 0.9);
        evidence(w, b, "%.0f workgroups for %u CUs: %.0f CUs get no work", in->workgroups,
                 in->cu_count, in->cu_count - in->workgroups);
    } else if (slots > 0 && waves > 0 && waves < 0.25 * slots) {
        score(w, b, 0.65);
        evidence(w, b, "%.0f waves fill %.0f%% of the %.0f wave slots (%u CUs x %u waves)", waves,
                 100.0 * waves / slots, slots, in->cu_count, in->max_waves_per_cu);
    }
    if (in->occupancy >= 0 && in->occupancy < RPL_CLS_LOW_OCCUPANCY) {
        score(w, b, 0.55);
        evidence(w, b, "theoretical occupancy %.0f%% of the wave slots per CU",
                 100.0 * in->occupancy);
    }
    if (w->score[b] > 0 && in->roof && in->roof->valid && in->roof->roof_fraction >= 0.6) {
        w->score[b] *= 0.5;
        evidence(w, b, "but the kernel reaches %.0f%% of its roof",
                 100.0 * in->roof->roof_fraction);
    }
}

static void roof_rules(work *w, const rpl_cls_input *in)
{
    const rpl_roof_point *r = in->roof;

    if (!r || !r->valid)
        return;
    if (!r->compute_bound) {
        rpl_bottleneck b = RPL_BN_MEMORY_BANDWIDTH;
        if (r->bw_fraction >= RPL_CLS_FAR_FROM_ROOF) {
            score(w, b, 0.45 + 0.5 * ramp(r->bw_fraction, RPL_CLS_FAR_FROM_ROOF, 0.9));
            evidence(w, b, "arithmetic intensity %.3g FLOP/B is below the ridge %.3g FLOP/B",
                     r->ai < 0 ? 0 : r->ai, r->ridge);
            evidence(w, b, "%.0f GB/s is %.0f%% of the %.0f GB/s memory roof", r->gbps,
                     100.0 * r->bw_fraction, r->peak_gbps);
        }
    } else {
        rpl_bottleneck b = RPL_BN_COMPUTE;
        if (r->compute_fraction >= RPL_CLS_FAR_FROM_ROOF) {
            score(w, b, 0.45 + 0.5 * ramp(r->compute_fraction, RPL_CLS_FAR_FROM_ROOF, 0.9));
            evidence(w, b, "arithmetic intensity %.3g FLOP/B is above the ridge %.3g FLOP/B", r->ai,
                     r->ridge);
            evidence(w, b, "%.0f GFLOP/s is %.0f%% of the %.0f GFLOP/s compute roof", r->gflops,
                     100.0 * r->compute_fraction, r->peak_gflops);
        }
    }
    if (r->roof_fraction < RPL_CLS_FAR_FROM_ROOF) {
        rpl_bottleneck b = RPL_BN_LATENCY;
        score(w, b, 0.5);
        evidence(w, b, "only %.0f%% of the %s roof reached", 100.0 * r->roof_fraction,
                 r->compute_bound ? "compute" : "memory");
    }
}

static void att_rules(work *w, const rpl_cls_input *in)
{
    const rpl_att_features *a = in->att;
    double div, math;

    if (!a)
        return;
    if (a->stall_fraction >= RPL_CLS_STALL_HIGH) {
        score(w, RPL_BN_LATENCY,
              w->score[RPL_BN_LATENCY] + 0.25 > 0.6 ? w->score[RPL_BN_LATENCY] + 0.25 : 0.6);
        evidence(w, RPL_BN_LATENCY, "ATT: %.0f%% of instruction cycles are stalls",
                 100.0 * a->stall_fraction);
    }
    if (a->mem_latency_cycles >= RPL_CLS_MEM_LATENCY_HIGH && w->score[RPL_BN_LATENCY] > 0) {
        score(w, RPL_BN_LATENCY, w->score[RPL_BN_LATENCY] + 0.15);
        evidence(w, RPL_BN_LATENCY, "ATT: %.0f cycles per memory instruction",
                 a->mem_latency_cycles);
    }
    div = a->total_hits > 0 ? (a->exec_hits + a->hits[RPL_ISA_BRANCH]) / a->total_hits : 0;
    if (div >= RPL_CLS_DIVERGENCE_HIGH) {
        score(w, RPL_BN_DIVERGENCE, 0.5 + ramp(div, RPL_CLS_DIVERGENCE_HIGH, 0.3) * 0.4);
        evidence(w, RPL_BN_DIVERGENCE,
                 "ATT: %.0f%% of instructions are branches or exec-mask changes "
                 "(%.0f%% exec-mask)",
                 100.0 * div, 100.0 * a->exec_hits / a->total_hits);
        if (in->roof && in->roof->valid && in->roof->roof_fraction < RPL_CLS_FAR_FROM_ROOF)
            score(w, RPL_BN_DIVERGENCE, w->score[RPL_BN_DIVERGENCE] + 0.2);
    }
    math = a->mix[RPL_ISA_VALU] + a->mix[RPL_ISA_MFMA];
    if (math >= 0.5 && a->stall_fraction < 0.3 && w->score[RPL_BN_COMPUTE] < 0.5) {
        score(w, RPL_BN_COMPUTE, 0.5);
        evidence(w, RPL_BN_COMPUTE, "ATT: %.0f%% VALU/MFMA instructions, %.0f%% stalls, IPC %.2f",
                 100.0 * math, 100.0 * a->stall_fraction, a->ipc);
    }
}

void rpl_classify(rpl_cls_result *out, const rpl_cls_input *in)
{
    work w;
    rpl_bottleneck best = RPL_BN_UNKNOWN, second;

    memset(&w, 0, sizeof(w));
    memset(out, 0, sizeof(*out));
    launch_rule(&w, in);
    occupancy_rule(&w, in);
    roof_rules(&w, in);
    att_rules(&w, in);
    for (int b = 1; b < RPL_BN_COUNT; b++)
        if (w.score[b] > w.score[best])
            best = (rpl_bottleneck)b;
    memcpy(out->scores, w.score, sizeof(out->scores));
    if (best == RPL_BN_UNKNOWN || w.score[best] < 0.2) {
        out->bottleneck = RPL_BN_UNKNOWN;
        out->confidence = 0;
        if (in->roof && in->roof->valid)
            snprintf(out->evidence[0], RPL_CLS_EVIDENCE_LEN,
                     "%.0f%% of the roof reached and no other rule fires clearly",
                     100.0 * in->roof->roof_fraction);
        else
            snprintf(out->evidence[0], RPL_CLS_EVIDENCE_LEN,
                     "no roofline (%s)%s and no launch or occupancy limit",
                     in->roof && in->roof->reason ? in->roof->reason : "no counters",
                     in->att ? "" : ", no ATT");
        out->nevidence = 1;
        return;
    }
    out->bottleneck = best;
    out->confidence = w.score[best] > 0.95 ? 0.95 : w.score[best];
    for (size_t i = 0; i < w.nev[best] && i < RPL_CLS_EVIDENCE_MAX - 1; i++)
        snprintf(out->evidence[out->nevidence++], RPL_CLS_EVIDENCE_LEN, "%s", w.ev[best][i]);
    /* A strong second limiter is worth knowing: name it with its first fact. */
    second = RPL_BN_UNKNOWN;
    for (int b = 1; b < RPL_BN_COUNT; b++)
        if (b != (int)best && w.nev[b] > 0 && w.score[b] > w.score[second])
            second = (rpl_bottleneck)b;
    if (second != RPL_BN_UNKNOWN && w.score[second] >= 0.5)
        snprintf(out->evidence[out->nevidence++], RPL_CLS_EVIDENCE_LEN,
                 "also %s (score %.2f): %.100s", names[second], w.score[second], w.ev[second][0]);
}
