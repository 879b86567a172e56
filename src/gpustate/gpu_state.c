/* The GPU state record: folding samples, JSON, and what makes a measurement's clocks suspect. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/gpu_state.h"
#include "rpl/json.h"

static const char *const throttle_names[RPL_THROTTLE_NAMES] = {
    "sw_power_cap",   "hw_slowdown", "sw_thermal",          "hw_thermal",
    "hw_power_brake", "sync_boost",  "applications_clocks", "other"};

const char *rpl_throttle_name(unsigned bit_index)
{
    return bit_index < RPL_THROTTLE_NAMES ? throttle_names[bit_index] : NULL;
}

static double higher(double a, double b)
{
    return a > b ? a : b;
}

void rpl_gpu_state_merge(rpl_gpu_state *acc, const rpl_gpu_state *s)
{
    if (!s->valid)
        return;
    if (!acc->valid) {
        *acc = *s;
        acc->samples = s->samples ? s->samples : 1;
        return;
    }
    acc->sm_mhz = higher(acc->sm_mhz, s->sm_mhz);
    acc->mem_mhz = higher(acc->mem_mhz, s->mem_mhz);
    acc->sm_max_mhz = higher(acc->sm_max_mhz, s->sm_max_mhz);
    acc->temperature_c = higher(acc->temperature_c, s->temperature_c);
    acc->power_w = higher(acc->power_w, s->power_w);
    acc->throttle |= s->throttle;
    acc->samples += s->samples ? s->samples : 1;
}

static cJSON *num_or_null(cJSON *o, const char *key, double v)
{
    return v >= 0 && isfinite(v) ? cJSON_AddNumberToObject(o, key, v)
                                 : cJSON_AddNullToObject(o, key);
}

cJSON *rpl_gpu_state_json(const rpl_gpu_state *s)
{
    cJSON *o, *arr;

    if (!s->valid)
        return cJSON_CreateNull();
    if (!(o = cJSON_CreateObject()))
        return NULL;
    if (!cJSON_AddStringToObject(o, "source", s->source) ||
        !num_or_null(o, "sm_clock_mhz", s->sm_mhz) ||
        !num_or_null(o, "mem_clock_mhz", s->mem_mhz) ||
        !num_or_null(o, "sm_clock_max_mhz", s->sm_max_mhz) ||
        !num_or_null(o, "temperature_c", s->temperature_c) ||
        !num_or_null(o, "power_w", s->power_w) ||
        !(arr = cJSON_AddArrayToObject(o, "throttle_reasons")) ||
        !cJSON_AddBoolToObject(o, "throttled", (s->throttle & RPL_THROTTLE_SLOWING) != 0) ||
        !rpl_json_add_int64(o, "samples", s->samples)) {
        cJSON_Delete(o);
        return NULL;
    }
    for (unsigned i = 0; i < RPL_THROTTLE_NAMES; i++)
        if ((s->throttle & (1u << i)) &&
            !cJSON_AddItemToArray(arr, cJSON_CreateString(throttle_names[i]))) {
            cJSON_Delete(o);
            return NULL;
        }
    return o;
}

static int opt_num(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    *out = -1;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > 1e7)
        return RPL_EINPUT;
    *out = v->valuedouble;
    return 0;
}

int rpl_gpu_state_from_json(rpl_gpu_state *out, const cJSON *item)
{
    const cJSON *src, *arr, *v;
    double n;

    memset(out, 0, sizeof(*out));
    if (!item || cJSON_IsNull(item))
        return 0;
    src = cJSON_GetObjectItemCaseSensitive(item, "source");
    arr = cJSON_GetObjectItemCaseSensitive(item, "throttle_reasons");
    if (!cJSON_IsObject(item) || !cJSON_IsString(src) ||
        strlen(src->valuestring) >= sizeof(out->source) || (arr && !cJSON_IsArray(arr)) ||
        opt_num(item, "sm_clock_mhz", &out->sm_mhz) ||
        opt_num(item, "mem_clock_mhz", &out->mem_mhz) ||
        opt_num(item, "sm_clock_max_mhz", &out->sm_max_mhz) ||
        opt_num(item, "temperature_c", &out->temperature_c) ||
        opt_num(item, "power_w", &out->power_w) || opt_num(item, "samples", &n))
        return RPL_EINPUT;
    snprintf(out->source, sizeof(out->source), "%s", src->valuestring);
    out->samples = n > 0 ? (unsigned)n : 0;
    cJSON_ArrayForEach(v, arr)
    {
        unsigned i = 0;

        if (!cJSON_IsString(v))
            return RPL_EINPUT;
        while (i < RPL_THROTTLE_NAMES && strcmp(throttle_names[i], v->valuestring) != 0)
            i++;
        out->throttle |= i < RPL_THROTTLE_NAMES ? 1u << i : RPL_THROTTLE_OTHER;
    }
    out->valid = true;
    return 0;
}

static void throttle_list(char *buf, size_t cap, unsigned bits)
{
    size_t len = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < RPL_THROTTLE_NAMES && len < cap; i++)
        if (bits & (1u << i))
            len +=
                (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", throttle_names[i]);
}

bool rpl_gpu_state_unstable(const rpl_gpu_state *s, const rpl_gpu_state *base, char *why,
                            size_t cap)
{
    size_t len = 0;
    char list[160];

    if (cap)
        why[0] = '\0';
    if (!s->valid)
        return false;
    if (s->throttle & RPL_THROTTLE_SLOWING) {
        throttle_list(list, sizeof(list), s->throttle & RPL_THROTTLE_SLOWING);
        len += (size_t)snprintf(why + len, cap - len, "throttled while measuring (%s)", list);
    }
    if (base && base->valid && base->sm_mhz > 0 && s->sm_mhz > 0 &&
        fabs(s->sm_mhz / base->sm_mhz - 1.0) > RPL_GPU_CLOCK_TOLERANCE && len < cap)
        len += (size_t)snprintf(
            why + len, cap - len, "%sSM clock %.0f MHz is %+.0f%% from the baseline's %.0f MHz",
            len ? "; " : "", s->sm_mhz, 100.0 * (s->sm_mhz / base->sm_mhz - 1.0), base->sm_mhz);
    return len > 0;
}

void rpl_gpu_state_describe(const rpl_gpu_state *s, char *buf, size_t cap)
{
    size_t len;
    char list[160];

    if (!s->valid) {
        snprintf(buf, cap, "not recorded");
        return;
    }
    len = (size_t)snprintf(buf, cap, "%.0f MHz SM", s->sm_mhz);
    if (s->sm_max_mhz > 0 && len < cap)
        len += (size_t)snprintf(buf + len, cap - len, " (max %.0f)", s->sm_max_mhz);
    if (s->mem_mhz >= 0 && len < cap)
        len += (size_t)snprintf(buf + len, cap - len, ", %.0f MHz memory", s->mem_mhz);
    if (s->temperature_c >= 0 && len < cap)
        len += (size_t)snprintf(buf + len, cap - len, ", %.0f C", s->temperature_c);
    if (s->power_w >= 0 && len < cap)
        len += (size_t)snprintf(buf + len, cap - len, ", %.0f W", s->power_w);
    throttle_list(list, sizeof(list), s->throttle);
    if (len < cap)
        snprintf(buf + len, cap - len, ", %s%s (%s, %u sample%s)",
                 s->throttle & RPL_THROTTLE_SLOWING ? "throttled: " : "not throttled",
                 s->throttle & RPL_THROTTLE_SLOWING ? list : "", s->source, s->samples,
                 s->samples == 1 ? "" : "s");
}
