/* The recorder's state, its metric list and its output path (no CUPTI calls here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "recorder.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"

/*
 * The roofline set: time, DRAM/L2/L1 bytes, FP16/32/64 thread operations
 * (FLOPs = add + mul + 2 fma) and tensor-core operations by source type
 * (already counted as FLOPs), as counters.md section 5.1 lists them.
 */
const char *const cr_roofline_metrics[] = {
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "l1tex__t_bytes.sum",
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "sm__ops_path_tensor_src_fp16.sum",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp64.sum",
    "sm__ops_path_tensor_src_fp8.sum",
    "sm__cycles_elapsed.avg.per_second",
    NULL,
};

int cr_state_init(cr_state *st)
{
    memset(st, 0, sizeof(*st));
    st->sample.per_kernel = CR_SAMPLE_ALL;
    if (pthread_mutex_init(&st->lock, NULL) != 0)
        return rpl_error_set(RPL_ERROR, "cannot create the recorder lock");
    return rpl_trace_new(&st->trace);
}

void cr_state_release(cr_state *st)
{
    for (size_t i = 0; i < st->devices.count; i++)
        cJSON_Delete(st->devices.items[i].extdata);
    RPL_FREE_EACH(st->apis.items, st->kernels.items, st->copies.items, st->syncs.items,
                  st->events.items, st->devices.items, st->ranges.items);
    cr_sample_release(&st->sample);
    free(st->range_values.items);
    free(st->metrics);
    rpl_trace_free(st->trace);
    pthread_mutex_destroy(&st->lock);
    memset(st, 0, sizeof(*st));
}

/* A metric name: letters, digits, '_' and '.', at most 200 characters. */
static bool metric_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 200)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.'))
            return false;
    }
    return true;
}

/* Pack `n` names into one allocation: the pointer array, then the strings. */
static int pack_names(const char ***out, const char *const *names, const size_t *lens, size_t n)
{
    size_t bytes = (n + 1) * sizeof(char *);
    char **arr, *p;

    for (size_t i = 0; i < n; i++)
        bytes += lens[i] + 1;
    arr = malloc(bytes);
    if (!arr)
        return rpl_error_oom();
    p = (char *)(arr + n + 1);
    for (size_t i = 0; i < n; i++) {
        memcpy(p, names[i], lens[i]);
        p[lens[i]] = '\0';
        arr[i] = p;
        p += lens[i] + 1;
    }
    arr[n] = NULL;
    *out = (const char **)arr;
    return 0;
}

int cr_metrics_parse(const char *spec, const char ***out, size_t *count)
{
    const char *names[256];
    size_t lens[256], n = 0;
    const char *p;

    *out = NULL;
    *count = 0;
    if (!spec || !spec[0] || strcmp(spec, "none") == 0)
        return 0;
    if (strcmp(spec, "roofline") == 0) {
        for (; cr_roofline_metrics[n]; n++) {
            names[n] = cr_roofline_metrics[n];
            lens[n] = strlen(names[n]);
        }
    } else {
        for (p = spec;;) {
            const char *end = strchr(p, ',');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            while (len && *p == ' ') {
                p++;
                len--;
            }
            while (len && p[len - 1] == ' ')
                len--;
            if (!metric_name_ok(p, len))
                return rpl_error_set(RPL_EUSAGE,
                                     "ROCM_PERF_CUPTI_COUNTERS: '%.*s' is not a metric name",
                                     (int)(len > 200 ? 200 : len), p);
            if (n == sizeof(names) / sizeof(names[0]))
                return rpl_error_set(RPL_EUSAGE, "ROCM_PERF_CUPTI_COUNTERS: more than %zu metrics",
                                     n);
            names[n] = p;
            lens[n++] = len;
            if (!end)
                break;
            p = end + 1;
        }
    }
    *count = n;
    return pack_names(out, names, lens, n);
}

int cr_api_parse(const char *spec, int *out)
{
    const char *p = spec;

    *out = CR_TRACE_RUNTIME;
    if (!spec || !spec[0])
        return 0;
    *out = 0;
    if (strcmp(spec, "none") == 0)
        return 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        if (len == 7 && strncmp(p, "runtime", 7) == 0)
            *out |= CR_TRACE_RUNTIME;
        else if (len == 6 && strncmp(p, "driver", 6) == 0)
            *out |= CR_TRACE_DRIVER;
        else {
            *out = CR_TRACE_RUNTIME;
            return rpl_error_set(RPL_EUSAGE,
                                 "ROCM_PERF_CUPTI_API='%s': expected 'runtime', 'driver', "
                                 "both separated by a comma, or 'none'",
                                 spec);
        }
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

unsigned cr_record_kinds(int apis)
{
    unsigned kinds = CR_RECORD_COPIES;

    if (apis & CR_TRACE_RUNTIME)
        kinds |= CR_RECORD_RUNTIME;
    if (apis & CR_TRACE_DRIVER)
        kinds |= CR_RECORD_DRIVER;
    if (apis)
        kinds |= CR_RECORD_API_DETAILS;
    return kinds;
}

int cr_kernel_timing_parse(const char *spec, cr_kernel_timing *out)
{
    *out = CR_KERNELS_CONCURRENT;
    if (!spec || !spec[0] || strcmp(spec, "concurrent") == 0)
        return 0;
    if (strcmp(spec, "serial") == 0) {
        *out = CR_KERNELS_SERIAL;
        return 0;
    }
    return rpl_error_set(RPL_EUSAGE,
                         "ROCM_PERF_CUPTI_KERNELS='%s': expected 'concurrent' or 'serial'", spec);
}

bool cr_api_makes_range(const char *name)
{
    if (!name)
        return false;
    if (strstr(name, "Memset"))
        return true;
    return strstr(name, "Launch") && !strstr(name, "HostFunc");
}

int cr_output_path(char **out, const char *dir, const char *hostname, int64_t pid)
{
    char rel[512];
    int n;

    *out = NULL;
    if (!hostname[0] || strchr(hostname, '/'))
        return rpl_error_set(RPL_EINPUT, "host name '%s' cannot name a directory", hostname);
    n = snprintf(rel, sizeof(rel), "%s/%lld_results.db", hostname, (long long)pid);
    if (n < 0 || (size_t)n >= sizeof(rel))
        return rpl_error_set(RPL_EINPUT, "host name '%s' is too long", hostname);
    return rpl_path_join(out, dir && dir[0] ? dir : ".", rel);
}
