/*
 * The gate result document (docs/schemas/gate-result.schema.json) and its
 * reading back for `rocm-perf report --suite`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/gate.h"
#include "rpl/json.h"
#include "rpl/version.h"

static cJSON *str_or_null(cJSON *o, const char *key, const char *s)
{
    return s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key);
}

static cJSON *num_or_null(cJSON *o, const char *key, bool has, double v)
{
    return has && isfinite(v) ? cJSON_AddNumberToObject(o, key, v) : cJSON_AddNullToObject(o, key);
}

static int runtime_json(cJSON *o, const rpl_runtime_cmp *c)
{
    cJSON *rt = cJSON_AddObjectToObject(o, "runtime");

    if (!rt || !cJSON_AddStringToObject(rt, "change", rpl_change_name(c->change)) ||
        !cJSON_AddStringToObject(rt, "method",
                                 c->history ? "stored-baseline" : "bootstrap-percentile") ||
        !cJSON_AddNumberToObject(rt, "log_ratio", c->log_ratio) ||
        !cJSON_AddNumberToObject(rt, "ratio", exp(c->log_ratio)) ||
        !cJSON_AddNumberToObject(rt, "ci_low", exp(c->lower)) ||
        !cJSON_AddNumberToObject(rt, "ci_high", exp(c->upper)) ||
        !cJSON_AddNumberToObject(rt, "se_boot", c->se_boot) ||
        !cJSON_AddNumberToObject(rt, "sigma_run", c->sigma_run) ||
        !rpl_json_add_int64(rt, "history", (int64_t)c->history) ||
        !cJSON_AddNumberToObject(rt, "p_value", c->p_value))
        return rpl_error_oom();
    return 0;
}

static int check_json(cJSON *arr, const rpl_gate_check *c)
{
    cJSON *o = cJSON_CreateObject();

    if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddStringToObject(o, "kernel", c->kernel) ||
        !cJSON_AddStringToObject(o, "family", c->family) ||
        !cJSON_AddStringToObject(o, "metric", c->metric) ||
        !cJSON_AddStringToObject(o, "verdict", rpl_verdict_name(c->verdict)) ||
        !num_or_null(o, "baseline", c->has_base, c->base) ||
        !num_or_null(o, "candidate", c->has_cand, c->cand) ||
        !num_or_null(o, "change", c->has_base && c->has_cand, c->change) ||
        !str_or_null(o, "baseline_text", c->base_text) ||
        !str_or_null(o, "candidate_text", c->cand_text) ||
        !cJSON_AddStringToObject(o, "message", c->message))
        return rpl_error_oom();
    if (c->has_runtime)
        return runtime_json(o, &c->rt);
    return cJSON_AddNullToObject(o, "runtime") ? 0 : rpl_error_oom();
}

int rpl_gate_result_json(cJSON **out, const rpl_gate_result *r)
{
    cJSON *doc = cJSON_CreateObject(), *tool, *opt, *arr = NULL, *att = NULL;
    int rc = 0;

    if (!doc || !cJSON_AddStringToObject(doc, "schema_version", RPL_GATE_RESULT_SCHEMA_VERSION) ||
        !(tool = cJSON_AddObjectToObject(doc, "tool")) ||
        !cJSON_AddStringToObject(tool, "name", "rocm-perf") ||
        !cJSON_AddStringToObject(tool, "version", RPL_VERSION_STRING) ||
        !cJSON_AddStringToObject(doc, "test", r->test) ||
        !cJSON_AddStringToObject(doc, "arch", r->arch) || !str_or_null(doc, "device", r->device) ||
        !cJSON_AddStringToObject(doc, "mode", r->mode) ||
        !cJSON_AddStringToObject(doc, "input", r->input) ||
        !cJSON_AddStringToObject(doc, "verdict", rpl_verdict_name(r->verdict)) ||
        !str_or_null(doc, "baseline", r->baseline_path) ||
        !cJSON_AddBoolToObject(doc, "baseline_missing", r->baseline_missing) ||
        !cJSON_AddBoolToObject(doc, "skipped", r->skipped) ||
        !str_or_null(doc, "create_command", r->create_command) ||
        !(opt = cJSON_AddObjectToObject(doc, "options")) ||
        !cJSON_AddNumberToObject(opt, "tolerance", r->stat.delta) ||
        !cJSON_AddNumberToObject(opt, "confidence", r->stat.confidence) ||
        !rpl_json_add_int64(opt, "bootstrap", r->stat.bootstrap) ||
        !rpl_json_add_int64(opt, "seed", (int64_t)r->stat.seed) ||
        !cJSON_AddStringToObject(opt, "undecided", rpl_verdict_name(r->stat.undecided)) ||
        !rpl_json_add_int64(opt, "warmup", r->warmup) ||
        !rpl_json_add_int64(opt, "repetitions", r->repetitions) ||
        !rpl_json_add_int64(doc, "undecided_retries", r->retries) ||
        !cJSON_AddItemToObject(doc, "gpu_state", rpl_gpu_state_json(&r->gpu)) ||
        !cJSON_AddItemToObject(doc, "baseline_gpu_state", rpl_gpu_state_json(&r->baseline_gpu)) ||
        !cJSON_AddBoolToObject(doc, "confirmed", r->confirmed) ||
        !str_or_null(doc, "confirmation", r->confirmation) ||
        !cJSON_AddNumberToObject(doc, "elapsed_s", r->elapsed_s) ||
        !(arr = cJSON_AddArrayToObject(doc, "checks")) ||
        !(att = cJSON_AddArrayToObject(doc, "attachments")))
        rc = rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < r->nchecks; i++)
        rc = check_json(arr, &r->checks[i]);
    for (size_t i = 0; rc == 0 && i < r->nattachments; i++)
        if (!cJSON_AddItemToArray(att, cJSON_CreateString(r->attachments[i])))
            rc = rpl_error_oom();
    if (rc == 0 && r->ntraces && !(arr = cJSON_AddArrayToObject(doc, "traces")))
        rc = rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < r->ntraces; i++)
        if (!cJSON_AddItemToArray(arr, cJSON_CreateString(r->traces[i])))
            rc = rpl_error_oom();
    if (rc != 0) {
        cJSON_Delete(doc);
        return rc;
    }
    *out = doc;
    return 0;
}

/* ---- reading (suite mode) ---- */

static int bad(const char *path, const char *what)
{
    return rpl_error_set(RPL_EINPUT, "'%s' is not a gate result: %s", path, what);
}

static int opt_number(const cJSON *o, const char *key, bool *has, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

    *has = cJSON_IsNumber(x);
    *v = *has ? x->valuedouble : 0;
    return *has || cJSON_IsNull(x) ? 0 : RPL_EINPUT;
}

static int read_check(rpl_gate_result *r, const cJSON *o, const char *path)
{
    const char *kernel, *family, *metric, *verdict, *message;
    const cJSON *rt;
    rpl_gate_check *c;
    int v;

    if (rpl_json_get_string(o, "kernel", &kernel) || rpl_json_get_string(o, "family", &family) ||
        rpl_json_get_string(o, "metric", &metric) || rpl_json_get_string(o, "verdict", &verdict) ||
        rpl_json_get_string(o, "message", &message) || (v = rpl_verdict_parse(verdict)) < 0)
        return bad(path, "a check lacks kernel, family, metric, verdict or message");
    if (!(c = RPL_ARRAY_PUSH(r->checks, r->nchecks, r->capchecks)))
        return rpl_error_last()->code;
    c->verdict = (rpl_verdict)v;
    if (rpl_gate_result_set(&c->kernel, kernel) || rpl_gate_result_set(&c->family, family) ||
        rpl_gate_result_set(&c->metric, metric) || rpl_gate_result_set(&c->message, message))
        return rpl_error_oom();
    if (opt_number(o, "baseline", &c->has_base, &c->base) ||
        opt_number(o, "candidate", &c->has_cand, &c->cand))
        return bad(path, "a check's baseline or candidate is not a number");
    if (c->has_base && c->has_cand && c->base != 0)
        c->change = c->cand / c->base - 1.0;
    rt = cJSON_GetObjectItemCaseSensitive(o, "runtime");
    if (cJSON_IsObject(rt)) {
        double lr, lo, hi, p, k;
        const char *change;
        int ch;
        if (rpl_json_get_number(rt, "log_ratio", &lr) || rpl_json_get_number(rt, "ci_low", &lo) ||
            rpl_json_get_number(rt, "ci_high", &hi) || rpl_json_get_number(rt, "p_value", &p) ||
            rpl_json_get_number(rt, "history", &k) || !(lo > 0) || !(hi > 0) || p < 0 || p > 1)
            return bad(path, "a runtime check lacks log_ratio, ci_low, ci_high, history or "
                             "p_value");
        /* Results of versions before the three-way verdict have no change. */
        if (rpl_json_get_string(rt, "change", &change) == 0) {
            if ((ch = rpl_change_parse(change)) < 0)
                return bad(path, "a runtime check's change is not same, faster, slower or "
                                 "undecided");
            c->rt.change = (rpl_change)ch;
        } else {
            rpl_error_clear();
            c->rt.change = c->verdict == RPL_VERDICT_FAIL       ? RPL_CHANGE_SLOWER
                           : c->verdict == RPL_VERDICT_IMPROVED ? RPL_CHANGE_FASTER
                           : c->verdict == RPL_VERDICT_WARN     ? RPL_CHANGE_UNDECIDED
                                                                : RPL_CHANGE_SAME;
        }
        c->has_runtime = true;
        c->rt.log_ratio = lr;
        c->rt.lower = log(lo);
        c->rt.upper = log(hi);
        c->rt.p_value = p;
        c->rt.history = (size_t)k;
        c->rt.median_base = c->base;
        c->rt.median_cand = c->cand;
        c->rt.verdict = c->verdict;
    }
    if (c->verdict > r->verdict)
        r->verdict = c->verdict;
    return 0;
}

int rpl_gate_result_from_json(rpl_gate_result **out, const cJSON *doc, const char *path)
{
    const char *ver, *test, *arch, *mode, *input, *verdict;
    const cJSON *checks, *o, *opt;
    rpl_gate_result *r = NULL;
    int rc;

    *out = NULL;
    if (rpl_json_get_string(doc, "schema_version", &ver) || strcmp(ver, "1.0") != 0 ||
        rpl_json_get_string(doc, "test", &test) || rpl_json_get_string(doc, "arch", &arch) ||
        rpl_json_get_string(doc, "mode", &mode) || rpl_json_get_string(doc, "input", &input) ||
        rpl_json_get_string(doc, "verdict", &verdict) || rpl_verdict_parse(verdict) < 0)
        return bad(path, "schema_version, test, arch, mode, input or verdict missing");
    checks = cJSON_GetObjectItemCaseSensitive(doc, "checks");
    opt = cJSON_GetObjectItemCaseSensitive(doc, "options");
    if (!cJSON_IsArray(checks) || !cJSON_IsObject(opt))
        return bad(path, "no checks or options");
    if ((rc = rpl_gate_result_new(&r, test, arch, mode, input)) != 0)
        return rc;
    if (rpl_json_get_number(opt, "tolerance", &r->stat.delta) ||
        rpl_json_get_number(opt, "confidence", &r->stat.confidence))
        rc = bad(path, "options lack tolerance or confidence");
    cJSON_ArrayForEach(o, checks)
    {
        if (rc == 0)
            rc = read_check(r, o, path);
    }
    if (rc == 0 && rpl_verdict_parse(verdict) != (int)r->verdict)
        rc = bad(path, "its verdict disagrees with its checks");
    r->skipped = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "skipped"));
    if (rc == 0 &&
        (rpl_gpu_state_from_json(&r->gpu, cJSON_GetObjectItemCaseSensitive(doc, "gpu_state")) ||
         rpl_gpu_state_from_json(&r->baseline_gpu,
                                 cJSON_GetObjectItemCaseSensitive(doc, "baseline_gpu_state"))))
        rc = bad(path, "gpu_state is malformed");
    o = cJSON_GetObjectItemCaseSensitive(doc, "device");
    if (rc == 0 && cJSON_IsString(o) && rpl_gate_result_set(&r->device, o->valuestring))
        rc = rpl_error_oom();
    o = cJSON_GetObjectItemCaseSensitive(doc, "baseline");
    if (rc == 0 && cJSON_IsString(o) && rpl_gate_result_set(&r->baseline_path, o->valuestring))
        rc = rpl_error_oom();
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "traces"))
    {
        if (rc == 0 && cJSON_IsString(o))
            rc = rpl_gate_result_add_trace(r, o->valuestring);
    }
    if (rc != 0) {
        rpl_gate_result_free(r);
        return rc;
    }
    *out = r;
    return 0;
}
