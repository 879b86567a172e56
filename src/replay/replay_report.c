/* The text and JSON reports of a replay (see rpl_replay_result_print/_json in rpl/replay.h). */
#include <inttypes.h>
#include <stdio.h>

#include "rpl/error.h"
#include "rpl/json_doc.h"
#include "rpl/replay.h"

static bool is_float(rpl_dtype t)
{
    return t == RPL_DTYPE_F16 || t == RPL_DTYPE_BF16 || t == RPL_DTYPE_F32 || t == RPL_DTYPE_F64;
}

static void print_check(FILE *out, const rpl_region_check *c)
{
    const rpl_compare_state *s = &c->cmp;

    fprintf(out, "  %s 0x%" PRIx64 "+%" PRIu64 " %s", c->global ? "global" : "region", c->base,
            c->size, rpl_dtype_name(s->dtype));
    if (is_float(s->dtype))
        fprintf(out, " (rtol %g, atol %g)", s->tol.rtol, s->tol.atol);
    else
        fputs(" (bitwise)", out);
    if (c->poisoned)
        fputs(" poisoned", out);
    if (s->mismatches == 0)
        fprintf(out, ": ok, %" PRIu64 " elements", s->elements);
    else
        fprintf(out,
                ": %" PRIu64 " of %" PRIu64 " elements differ; first at 0x%" PRIx64
                ": got %.9g (0x%" PRIx64 "), want %.9g (0x%" PRIx64 ")",
                s->mismatches, s->elements, s->first_addr, s->first_got, s->first_got_bits,
                s->first_want, s->first_want_bits);
    if (is_float(s->dtype))
        fprintf(out, ", max abs err %.3g, max rel err %.3g", s->max_abs_err, s->max_rel_err);
    if (!c->identical_runs)
        fputs(", runs differ", out);
    fputc('\n', out);
}

int rpl_replay_result_print(FILE *out, const rpl_replay_result *r)
{
    const double ms = 1e-6;

    fputs("Memory reconstructed.\n", out);
    fprintf(out, "Iterations: %u\n", r->iterations);
    fprintf(out, "Recopy between iterations: %s\n", r->recopy ? "yes" : "no");
    fprintf(out, "Average GPU time: %.4f ms\n", r->mean_ns * ms);
    fprintf(out, "Total wall time: %.1f ms\n", r->wall_s * 1e3);
    fprintf(out, "Median GPU time: %.4f ms\n", r->median_ns * ms);
    fprintf(out, "Min / max GPU time: %.4f / %.4f ms\n", r->min_ns * ms, r->max_ns * ms);
    fprintf(out, "Standard deviation: %.4f ms (%.1f %% of the mean)\n", r->stddev_ns * ms,
            r->mean_ns > 0 ? 100.0 * r->stddev_ns / r->mean_ns : 0.0);
    fprintf(out, "Warm-up launches: %u; timer: %s\n", r->warmup, r->timer ? r->timer : "unknown");
    fprintf(out,
            "Restore: %" PRIu64 " bytes %s at %.1f GB/s from a %s copy (plain device-to-device "
            "copy of the same bytes: %.1f GB/s)\n",
            r->restore_bytes, r->recopy ? "before each launch" : "once, before the first launch",
            r->restore_gbps, r->restore_from_device ? "device-resident" : "host", r->d2d_gbps);
    fprintf(out, "Kernel: %s\n", r->kernel);
    fprintf(out, "Code object: %s%s\n", r->code_object, r->candidate ? " (candidate)" : "");
    fprintf(out, "Device: %s (%s), backend %s, ASLR %s\n", r->device ? r->device : "unknown",
            r->arch, r->backend, r->aslr_disabled ? "off" : "on");
    if (!r->checked)
        return ferror(out) ? rpl_error_set(RPL_EIO, "cannot write the replay report") : 0;
    fprintf(out,
            "Check: %s, %zu region%s compared with the captured post-dispatch image after %u "
            "launch%s\n",
            r->check_passed ? "passed" : "FAILED", r->nchecks, r->nchecks == 1 ? "" : "s",
            r->check_runs, r->check_runs == 1 ? "" : "es");
    if (r->globals_left_out)
        fprintf(out,
                "Module globals left out: %zu (the code object has none of that name, and the "
                "captured dispatch did not change them)\n",
                r->globals_left_out);
    if (!r->deterministic)
        fputs("Repeated runs gave different bytes: the kernel is not deterministic here\n", out);
    for (size_t i = 0; i < r->nchecks; i++)
        print_check(out, &r->checks[i]);
    return ferror(out) ? rpl_error_set(RPL_EIO, "cannot write the replay report") : 0;
}

/* "region 0x...: 12 of 1024 f32 elements differ, first at 0x... (got 1, want 2)" */
void rpl_replay_check_failure_print(FILE *out, const rpl_replay_result *r)
{
    for (size_t i = 0; i < r->nchecks; i++) {
        const rpl_compare_state *c = &r->checks[i].cmp;

        if (c->mismatches == 0)
            continue;
        fprintf(out,
                "check failed: %s 0x%llx: %llu of %llu %s elements differ, first at "
                "0x%llx (got %.9g, want %.9g)\n",
                r->checks[i].global ? "global" : "region", (unsigned long long)r->checks[i].base,
                (unsigned long long)c->mismatches, (unsigned long long)c->elements,
                rpl_dtype_name(c->dtype), (unsigned long long)c->first_addr, c->first_got,
                c->first_want);
        return;
    }
    fputs("check failed: repeated launches gave different bytes\n", out);
}

static void hex(rpl_json_doc *e, cJSON *o, const char *k, uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
    rpl_json_doc_add_string(e, o, k, buf);
}

static void json_check(rpl_json_doc *e, cJSON *arr, const rpl_region_check *c)
{
    const rpl_compare_state *s = &c->cmp;
    cJSON *o = rpl_json_doc_push_object(e, arr), *first;

    if (!o)
        return;
    hex(e, o, "base", c->base);
    rpl_json_doc_add_number(e, o, "size", (double)c->size);
    rpl_json_doc_check(e, cJSON_AddBoolToObject(o, "global", c->global));
    rpl_json_doc_check(e, cJSON_AddBoolToObject(o, "poisoned", c->poisoned));
    rpl_json_doc_add_string(e, o, "dtype", rpl_dtype_name(s->dtype));
    rpl_json_doc_add_number(e, o, "rtol", s->tol.rtol);
    rpl_json_doc_add_number(e, o, "atol", s->tol.atol);
    rpl_json_doc_add_number(e, o, "elements", (double)s->elements);
    rpl_json_doc_add_number(e, o, "mismatches", (double)s->mismatches);
    rpl_json_doc_add_number(e, o, "max_abs_err", s->max_abs_err);
    rpl_json_doc_add_number(e, o, "max_rel_err", s->max_rel_err);
    rpl_json_doc_check(e, cJSON_AddBoolToObject(o, "identical_runs", c->identical_runs));
    if (!s->have_first) {
        rpl_json_doc_check(e, cJSON_AddNullToObject(o, "first_difference"));
        return;
    }
    if (!(first = rpl_json_doc_check(e, cJSON_AddObjectToObject(o, "first_difference"))))
        return;
    hex(e, first, "address", s->first_addr);
    rpl_json_doc_add_number(e, first, "got", s->first_got);
    rpl_json_doc_add_number(e, first, "want", s->first_want);
    hex(e, first, "got_bits", s->first_got_bits);
    hex(e, first, "want_bits", s->first_want_bits);
}

static void json_timing(rpl_json_doc *e, cJSON *doc, const rpl_replay_result *r)
{
    cJSON *t = rpl_json_doc_check(e, cJSON_AddObjectToObject(doc, "timing")), *times;

    if (!t)
        return;
    rpl_json_doc_add_string(e, t, "unit", "ns");
    rpl_json_doc_add_string(e, t, "timer", r->timer);
    rpl_json_doc_add_number(e, t, "mean", r->mean_ns);
    rpl_json_doc_add_number(e, t, "median", r->median_ns);
    rpl_json_doc_add_number(e, t, "min", r->min_ns);
    rpl_json_doc_add_number(e, t, "max", r->max_ns);
    rpl_json_doc_add_number(e, t, "stddev", r->stddev_ns);
    times = rpl_json_doc_check(e, cJSON_AddArrayToObject(t, "times_ns"));
    for (size_t i = 0; times && i < r->ntimes; i++) {
        cJSON *n = cJSON_CreateNumber(r->times_ns[i]);

        if (!n || !cJSON_AddItemToArray(times, n)) {
            cJSON_Delete(n);
            e->oom = true;
            return;
        }
    }
}

static void json_reserve(rpl_json_doc *e, cJSON *doc, const rpl_reserve_report *rr)
{
    cJSON *o = rpl_json_doc_check(e, cJSON_AddObjectToObject(doc, "reserve"));

    if (!o)
        return;
    rpl_json_doc_add_number(e, o, "spans", (double)rr->nspans);
    rpl_json_doc_add_number(e, o, "reserved", (double)rr->reserved);
    rpl_json_doc_check(e, cJSON_AddBoolToObject(o, "relocation", rr->relocation));
    rpl_json_doc_check(e, cJSON_AddBoolToObject(o, "failure", rr->failure));
    hex(e, o, "first_bad", rr->first_bad);
    hex(e, o, "got", rr->got);
    rpl_json_doc_add_string(e, o, "detail", rr->detail);
}

int rpl_replay_result_json(cJSON **out, const rpl_replay_result *r)
{
    rpl_json_doc e = {false};
    cJSON *doc = rpl_json_doc_begin(&e, RPL_REPLAY_SCHEMA_VERSION, out), *restore, *check, *arr;

    if (!doc)
        return rpl_error_oom();
    rpl_json_doc_add_tool(&e, doc);
    rpl_json_doc_add_string(&e, doc, "snapshot", r->snapshot);
    rpl_json_doc_add_string(&e, doc, "backend", r->backend);
    rpl_json_doc_add_string(&e, doc, "arch", r->arch);
    rpl_json_doc_add_string(&e, doc, "device", r->device);
    rpl_json_doc_add_string(&e, doc, "kernel", r->kernel);
    rpl_json_doc_add_string(&e, doc, "code_object", r->code_object);
    rpl_json_doc_check(&e, cJSON_AddBoolToObject(doc, "candidate", r->candidate));
    rpl_json_doc_check(&e, cJSON_AddBoolToObject(doc, "aslr_disabled", r->aslr_disabled));
    rpl_json_doc_add_number(&e, doc, "iterations", r->iterations);
    rpl_json_doc_add_number(&e, doc, "warmup", r->warmup);
    rpl_json_doc_check(&e, cJSON_AddBoolToObject(doc, "recopy", r->recopy));
    json_timing(&e, doc, r);
    rpl_json_doc_add_number(&e, doc, "wall_ms", r->wall_s * 1e3);
    if ((restore = rpl_json_doc_check(&e, cJSON_AddObjectToObject(doc, "restore"))) != NULL) {
        rpl_json_doc_add_number(&e, restore, "bytes", (double)r->restore_bytes);
        rpl_json_doc_add_number(&e, restore, "gbps", r->restore_gbps);
        rpl_json_doc_add_number(&e, restore, "d2d_gbps", r->d2d_gbps);
        rpl_json_doc_check(&e,
                           cJSON_AddBoolToObject(restore, "from_device", r->restore_from_device));
    }
    json_reserve(&e, doc, &r->reserve);
    if (!r->checked) {
        rpl_json_doc_check(&e, cJSON_AddNullToObject(doc, "check"));
    } else if ((check = rpl_json_doc_check(&e, cJSON_AddObjectToObject(doc, "check"))) != NULL) {
        rpl_json_doc_check(&e, cJSON_AddBoolToObject(check, "passed", r->check_passed));
        rpl_json_doc_add_number(&e, check, "runs", r->check_runs);
        rpl_json_doc_check(&e, cJSON_AddBoolToObject(check, "deterministic", r->deterministic));
        arr = rpl_json_doc_check(&e, cJSON_AddArrayToObject(check, "regions"));
        for (size_t i = 0; arr && i < r->nchecks; i++)
            json_check(&e, arr, &r->checks[i]);
    }
    return rpl_json_doc_finish(&e, doc, out);
}

int rpl_replay_failure(char *line, size_t cap, const rpl_replay_result *r)
{
    if (r->fault[0]) {
        snprintf(line, cap, "the replayed kernel failed on the device: %s", r->fault);
        return RPL_EXIT_FAIL;
    }
    snprintf(line, cap, "%s: %s%s", r->reserve.relocation ? "relocation" : "reservation failed",
             r->reserve.detail, r->aslr_disabled ? "" : " (ASLR is on in this process)");
    return RPL_EXIT_ENV;
}
