/*
 * The prompt's roofline, bottleneck and ATT facts from `analyze --out DIR`
 * (rpl/llm_analysis.h).  The files are the user's input: every field used
 * is type-checked when they are read, so a bad file stops the run before
 * the first request; strings are cut and stripped of control characters
 * before they reach the prompt.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/kernel_filter.h"
#include "rpl/llm_analysis.h"
#include "rpl/roofline.h"
#include "rpl/strbuf.h"

#define ANALYSIS_JSON_MAX (256u << 20)
#define TEXT_MAX          300 /* bytes of one string from the files in the prompt */
#define EVIDENCE_MAX      6   /* evidence lines in the bottleneck fact */
#define HOT_MAX           5   /* hottest instructions in the att fact */

struct rpl_llm_analysis {
    cJSON *roofline, *analysis;
    char *origin; /* the facts' first line, or NULL: made by `rocm-perf analyze` */
};

/* ---- reading and checking ------------------------------------------------ */

typedef enum field_kind {
    NUM,
    NUM_OR_NULL,
    STR,
    STR_OR_NULL,
    OBJ_OR_NULL,
    BOOL,
    STR_ARRAY
} field_kind;

typedef struct field {
    const char *key;
    field_kind kind;
} field;

static const char *kind_text(field_kind k)
{
    static const char *const text[] = {"a number",           "a number or null",  "a string",
                                       "a string or null",   "an object or null", "true or false",
                                       "an array of strings"};
    return text[k];
}

static bool finite_number(const cJSON *v)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble);
}

static bool field_ok(const cJSON *v, field_kind k)
{
    const cJSON *e;

    switch (k) {
    case NUM:
        return finite_number(v);
    case NUM_OR_NULL:
        return cJSON_IsNull(v) || finite_number(v);
    case STR:
        return cJSON_IsString(v);
    case STR_OR_NULL:
        return cJSON_IsNull(v) || cJSON_IsString(v);
    case OBJ_OR_NULL:
        return cJSON_IsNull(v) || cJSON_IsObject(v);
    case BOOL:
        return cJSON_IsBool(v);
    case STR_ARRAY:
        if (!cJSON_IsArray(v))
            return false;
        cJSON_ArrayForEach(e, v)
        {
            if (!cJSON_IsString(e))
                return false;
        }
        return true;
    }
    return false;
}

/* Fields of `obj` that are present have their kind; `where` names obj in the message. */
static int check_fields(const cJSON *obj, const field *fields, size_t n, const char *file,
                        const char *where)
{
    for (size_t i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, fields[i].key);
        if (v && !field_ok(v, fields[i].kind))
            return rpl_error_set(RPL_EINPUT, "%s: %s.%s must be %s", file, where, fields[i].key,
                                 kind_text(fields[i].kind));
    }
    return 0;
}

#define CHECK(obj, fields, file, where)                                                            \
    check_fields(obj, fields, sizeof(fields) / sizeof(fields[0]), file, where)

static int check_roofline_kernel(const cJSON *k, const char *file, const char *where)
{
    static const field top[] = {
        {"kernel", STR},
        {"mangled", STR},
        {"time_ns", NUM_OR_NULL},
        {"arithmetic_intensity", NUM_OR_NULL},
        {"gflops", NUM_OR_NULL},
        {"gbps", NUM_OR_NULL},
        {"bound", STR_OR_NULL},
        {"roof_fraction", NUM_OR_NULL},
        {"dispatches", NUM_OR_NULL},
        {"dispatches_with_counters", NUM_OR_NULL},
        {"roofline", OBJ_OR_NULL},
        {"reason", STR_OR_NULL},
    };
    static const field roof[] = {
        {"peak_gflops", NUM_OR_NULL},      {"peak_gbps", NUM_OR_NULL},
        {"ridge_point", NUM_OR_NULL},      {"bandwidth_fraction", NUM_OR_NULL},
        {"compute_fraction", NUM_OR_NULL}, {"exceeds_roof", BOOL},
    };
    char sub[64];
    int rc = CHECK(k, top, file, where);

    if (rc == 0) {
        snprintf(sub, sizeof(sub), "%s.roofline", where);
        rc = CHECK(cJSON_GetObjectItemCaseSensitive(k, "roofline"), roof, file, sub);
    }
    return rc;
}

/* att.hottest, when there: an array of instruction objects. */
static int check_hottest(const cJSON *hot, const char *file, const char *where)
{
    static const field fields[] = {
        {"isa", STR},
        {"source", STR},
        {"hits", NUM_OR_NULL},
        {"latency_cycles", NUM_OR_NULL},
        {"stall_cycles", NUM_OR_NULL},
        {"latency_fraction", NUM_OR_NULL},
    };
    const cJSON *h;
    char sub[112];
    size_t i = 0;
    int rc = 0;

    if (!hot || cJSON_IsNull(hot))
        return 0;
    if (!cJSON_IsArray(hot))
        return rpl_error_set(RPL_EINPUT, "%s: %s.hottest must be an array", file, where);
    cJSON_ArrayForEach(h, hot)
    {
        snprintf(sub, sizeof(sub), "%s.hottest[%zu]", where, i++);
        if (rc == 0 && !cJSON_IsObject(h))
            rc = rpl_error_set(RPL_EINPUT, "%s: %s must be an object", file, sub);
        if (rc == 0)
            rc = CHECK(h, fields, file, sub);
    }
    return rc;
}

static int check_analysis_kernel(const cJSON *k, const char *file, const char *where)
{
    static const field top[] = {
        {"kernel", STR},
        {"bottleneck", STR},
        {"confidence", NUM_OR_NULL},
        {"headroom", NUM_OR_NULL},
        {"critical_path_fraction", NUM_OR_NULL},
        {"evidence", STR_ARRAY},
        {"facts", OBJ_OR_NULL},
        {"att", OBJ_OR_NULL},
    };
    static const field facts[] = {{"occupancy", NUM_OR_NULL}};
    static const field att[] = {
        {"instruction_mix", OBJ_OR_NULL},
        {"instructions", NUM_OR_NULL},
        {"stall_fraction", NUM_OR_NULL},
        {"idle_fraction", NUM_OR_NULL},
        {"ipc", NUM_OR_NULL},
        {"mem_latency_cycles", NUM_OR_NULL},
    };
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(k, "att"), *mix, *e;
    char sub[80];
    int rc = CHECK(k, top, file, where);

    snprintf(sub, sizeof(sub), "%s.facts", where);
    if (rc == 0)
        rc = CHECK(cJSON_GetObjectItemCaseSensitive(k, "facts"), facts, file, sub);
    snprintf(sub, sizeof(sub), "%s.att", where);
    if (rc == 0)
        rc = CHECK(a, att, file, sub);
    if (rc == 0)
        rc = check_hottest(cJSON_GetObjectItemCaseSensitive(a, "hottest"), file, sub);
    mix = cJSON_GetObjectItemCaseSensitive(a, "instruction_mix");
    cJSON_ArrayForEach(e, mix)
    {
        if (rc == 0 && !finite_number(e))
            rc = rpl_error_set(RPL_EINPUT, "%s: %s.instruction_mix values must be numbers", file,
                               sub);
    }
    return rc;
}

/* A document of `analyze --out`: an object with a "kernels" array of checked objects. */
static int parse_doc(cJSON **out, const char *text, size_t len, const char *file, bool roofline)
{
    const cJSON *kernels, *k, *version;
    size_t i = 0;
    int rc;

    if ((rc = rpl_json_parse(out, text, len, file)) != 0)
        return rc;
    version = cJSON_GetObjectItemCaseSensitive(*out, "schema_version");
    kernels = cJSON_GetObjectItemCaseSensitive(*out, "kernels");
    if (!cJSON_IsObject(*out) || !cJSON_IsArray(kernels))
        rc = rpl_error_set(RPL_EINPUT,
                           "%s: not a file of 'rocm-perf analyze --out' (no "
                           "\"kernels\" array)",
                           file);
    else if (version && !(cJSON_IsString(version) && strncmp(version->valuestring, "1.", 2) == 0))
        rc = rpl_error_set(RPL_EINPUT, "%s: schema_version is not 1.x", file);
    cJSON_ArrayForEach(k, kernels)
    {
        char where[32];
        if (rc != 0)
            break;
        snprintf(where, sizeof(where), "kernels[%zu]", i++);
        if (!cJSON_IsObject(k) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(k, "kernel")))
            rc = rpl_error_set(RPL_EINPUT, "%s: %s is not an object with a \"kernel\" name", file,
                               where);
        else
            rc = roofline ? check_roofline_kernel(k, file, where)
                          : check_analysis_kernel(k, file, where);
    }
    if (rc != 0) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return rc;
}

void rpl_llm_analysis_free(rpl_llm_analysis *a)
{
    if (!a)
        return;
    cJSON_Delete(a->roofline);
    cJSON_Delete(a->analysis);
    free(a->origin);
    free(a);
}

int rpl_llm_analysis_set_origin(rpl_llm_analysis *a, const char *origin)
{
    free(a->origin);
    a->origin = NULL;
    if (origin && !(a->origin = strdup(origin)))
        return rpl_error_oom();
    return 0;
}

int rpl_llm_analysis_parse(rpl_llm_analysis **out, const char *roofline, size_t roofline_len,
                           const char *roofline_name, const char *analysis, size_t analysis_len,
                           const char *analysis_name)
{
    rpl_llm_analysis *a = calloc(1, sizeof(*a));
    int rc;

    *out = NULL;
    if (!a)
        return rpl_error_oom();
    if ((rc = parse_doc(&a->roofline, roofline, roofline_len, roofline_name, true)) != 0 ||
        (rc = parse_doc(&a->analysis, analysis, analysis_len, analysis_name, false)) != 0) {
        rpl_llm_analysis_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

/* DIR/name's bytes; a missing file is the user's mistake, named with the way out. */
static int read_file(char **path, char **text, size_t *len, const char *dir, const char *name)
{
    int rc = rpl_path_join(path, dir, name);

    if (rc == 0)
        rc = rpl_file_read_all(*path, ANALYSIS_JSON_MAX, text, len);
    if (rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_ENOTFOUND,
                           "--analysis: '%s' does not exist; run 'rocm-perf analyze --out %s' "
                           "on a profile with counters first",
                           *path, dir);
    return rc;
}

int rpl_llm_analysis_load(rpl_llm_analysis **out, const char *dir)
{
    char *rpath = NULL, *apath = NULL, *rtext = NULL, *atext = NULL;
    size_t rlen = 0, alen = 0;
    int rc;

    *out = NULL;
    if ((rc = read_file(&rpath, &rtext, &rlen, dir, RPL_ROOFLINE_JSON_NAME)) == 0 &&
        (rc = read_file(&apath, &atext, &alen, dir, RPL_ANALYSIS_JSON_NAME)) == 0)
        rc = rpl_llm_analysis_parse(out, rtext, rlen, rpath, atext, alen, apath);
    RPL_FREE_EACH(rpath, apath, rtext, atext);
    return rc;
}

/* ---- finding the kernel --------------------------------------------------- */

/*
 * How well `entry` names the kernel: 3 its display or mangled name as given,
 * 2 the same short name (rpl_kernel_short_name: no return type, template
 * arguments or parameters), 1 the short name ends in "::" and the kernel's
 * unqualified name; 0 not at all.
 */
static int match_rank(const cJSON *entry, const char *kernel, const char *kshort, rpl_strbuf *sb,
                      int *rc)
{
    const char *name = cJSON_GetObjectItemCaseSensitive(entry, "kernel")->valuestring;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(entry, "mangled");
    const char *mangled = cJSON_IsString(m) ? m->valuestring : NULL;
    size_t sl, kl = strlen(kshort);

    if (strcmp(name, kernel) == 0 || (mangled && strcmp(mangled, kernel) == 0))
        return 3;
    if ((*rc = rpl_kernel_short_name(sb, mangled ? mangled : name, name)) != 0)
        return 0;
    if (!sb->ptr)
        return 0;
    if (strcmp(sb->ptr, kshort) == 0)
        return 2;
    sl = sb->len;
    if (kl > 0 && sl > kl + 2 && strcmp(sb->ptr + sl - kl, kshort) == 0 &&
        memcmp(sb->ptr + sl - kl - 2, "::", 2) == 0)
        return 1;
    return 0;
}

static double number_or(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return finite_number(v) ? v->valuedouble : dflt;
}

/* The entry of `doc` that names the kernel best (ties: the one with the most time), or NULL. */
static int find_entry(const cJSON **out, const cJSON *doc, const char *kernel)
{
    const cJSON *e;
    rpl_strbuf ks = RPL_STRBUF_INIT, sb = RPL_STRBUF_INIT;
    int best = 0, rc;

    *out = NULL;
    if ((rc = rpl_kernel_short_name(&ks, kernel, kernel)) != 0)
        goto done;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "kernels"))
    {
        int r = match_rank(e, kernel, ks.ptr ? ks.ptr : "", &sb, &rc);
        if (rc != 0)
            break;
        if (r > best ||
            (r > 0 && r == best && number_or(e, "time_ns", 0) > number_or(*out, "time_ns", 0))) {
            best = r;
            *out = e;
        }
    }
done:
    rpl_strbuf_release(&ks);
    rpl_strbuf_release(&sb);
    return rc == 0 ? 0 : rpl_error_oom();
}

/* The entry of `doc` whose display name is `name`, or NULL. */
static const cJSON *entry_named(const cJSON *doc, const char *name)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "kernels"))
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "kernel")->valuestring, name) == 0)
            return e;
    }
    return NULL;
}

/* ---- the facts' text ------------------------------------------------------ */

/* A string of the files, one line of at most TEXT_MAX bytes (cut at a UTF-8 boundary). */
static int put_text(rpl_strbuf *sb, const char *s)
{
    size_t n = rpl_utf8_cut(s, strlen(s), TEXT_MAX);
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = rpl_strbuf_putc(sb, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i]);
    return rc;
}

static int origin_line(rpl_strbuf *sb, unsigned changes, const char *origin)
{
    if (origin)
        return rpl_strbuf_printf(sb, "%s\n", origin);
    if (changes == 0)
        return rpl_strbuf_puts(sb, "Measured on the original kernel (the version below) by "
                                   "`rocm-perf analyze`.\n");
    return rpl_strbuf_printf(sb,
                             "Measured on the original kernel by `rocm-perf analyze`, before "
                             "the %u accepted change%s of this run: the version below may "
                             "behave differently.\n",
                             changes, changes == 1 ? "" : "s");
}

static const char *string_or(const cJSON *obj, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* Set *out from sb when more than the origin line was written. */
static int finish_text(char **out, rpl_strbuf *sb, size_t origin_len, int rc)
{
    if (rc == 0 && sb->len > origin_len) {
        while (sb->len && sb->ptr[sb->len - 1] == '\n')
            sb->ptr[--sb->len] = '\0';
        if (!(*out = rpl_strbuf_detach(sb)))
            rc = rpl_error_oom();
    }
    rpl_strbuf_release(sb);
    return rc;
}

static int roofline_text(char **out, const cJSON *k, unsigned changes, const char *first)
{
    const cJSON *roof = cJSON_GetObjectItemCaseSensitive(k, "roofline");
    double ai = number_or(k, "arithmetic_intensity", NAN), gf = number_or(k, "gflops", NAN);
    double gb = number_or(k, "gbps", NAN), frac = number_or(k, "roof_fraction", NAN);
    double n = number_or(k, "dispatches", NAN), nc = number_or(k, "dispatches_with_counters", NAN);
    double ridge = number_or(roof, "ridge_point", NAN);
    const char *bound = string_or(k, "bound", NULL), *reason = string_or(k, "reason", NULL);
    rpl_strbuf sb = RPL_STRBUF_INIT;
    size_t origin;
    int rc = origin_line(&sb, changes, first);

    origin = sb.len;
    if (rc == 0 && !isnan(n) && !isnan(nc))
        rc = rpl_strbuf_printf(&sb, "- %.0f dispatches, %.0f of them with counters\n", n, nc);
    if (rc == 0 && !isnan(ai))
        rc = rpl_strbuf_printf(&sb, "- arithmetic intensity %.3g FLOP/byte%s", ai,
                               isnan(ridge) ? "\n" : "");
    if (rc == 0 && !isnan(ai) && !isnan(ridge))
        rc = rpl_strbuf_printf(&sb, " (the ridge point is at %.3g)\n", ridge);
    if (rc == 0 && !isnan(gf) && !isnan(gb))
        rc = rpl_strbuf_printf(&sb, "- achieved %.1f GFLOP/s and %.1f GB/s (HBM)\n", gf, gb);
    if (rc == 0 && bound && (strcmp(bound, "memory") == 0 || strcmp(bound, "compute") == 0)) {
        bool memory = strcmp(bound, "memory") == 0;
        double peak = number_or(roof, memory ? "peak_gbps" : "peak_gflops", NAN);
        if (isnan(frac))
            frac = number_or(roof, memory ? "bandwidth_fraction" : "compute_fraction", NAN);
        rc = rpl_strbuf_printf(&sb, "- %s-bound: the %s roof", memory ? "memory" : "compute",
                               memory ? "HBM bandwidth" : "compute");
        if (rc == 0 && !isnan(peak))
            rc = rpl_strbuf_printf(&sb, " of %.1f %s", peak, memory ? "GB/s" : "GFLOP/s");
        if (rc == 0)
            rc = rpl_strbuf_puts(&sb, " binds");
        if (rc == 0 && !isnan(frac))
            rc = rpl_strbuf_printf(&sb, "; the kernel reaches %.1f%% of it", 100.0 * frac);
        if (rc == 0 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(roof, "exceeds_roof")))
            rc = rpl_strbuf_puts(&sb, " (the counters claim more than the ceilings allow)");
        if (rc == 0)
            rc = rpl_strbuf_puts(&sb, "\n");
    } else if (rc == 0 && reason) {
        if ((rc = rpl_strbuf_puts(&sb, "- no roofline: ")) == 0 &&
            (rc = put_text(&sb, reason)) == 0)
            rc = rpl_strbuf_puts(&sb, "\n");
    }
    return finish_text(out, &sb, origin, rc);
}

static int bottleneck_text(char **out, const cJSON *k, unsigned changes, const char *first)
{
    const char *cls = string_or(k, "bottleneck", NULL);
    double conf = number_or(k, "confidence", NAN), head = number_or(k, "headroom", NAN);
    double occ = number_or(cJSON_GetObjectItemCaseSensitive(k, "facts"), "occupancy", NAN);
    const cJSON *ev;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    size_t origin;
    unsigned shown = 0;
    int rc;

    if (!cls || strcmp(cls, "unknown") == 0)
        return 0;
    rc = origin_line(&sb, changes, first);
    origin = sb.len;
    if (rc == 0 && (rc = rpl_strbuf_puts(&sb, "- ")) == 0) {
        size_t at = sb.len;
        rc = put_text(&sb, cls); /* "memory_bandwidth" -> "memory bandwidth" */
        for (size_t i = at; rc == 0 && i < sb.len; i++)
            if (sb.ptr[i] == '_')
                sb.ptr[i] = ' ';
    }
    if (rc == 0)
        rc = isnan(conf) ? rpl_strbuf_puts(&sb, "\n")
                         : rpl_strbuf_printf(&sb, " (confidence %.2f)\n", conf);
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(k, "evidence"))
    {
        if (rc != 0 || shown++ == EVIDENCE_MAX)
            break;
        if ((rc = rpl_strbuf_puts(&sb, "- evidence: ")) == 0 &&
            (rc = put_text(&sb, ev->valuestring)) == 0)
            rc = rpl_strbuf_puts(&sb, "\n");
    }
    if (rc == 0 && !isnan(occ))
        rc = rpl_strbuf_printf(&sb, "- occupancy %.0f%% of the waves a CU can hold\n", 100.0 * occ);
    if (rc == 0 && !isnan(head))
        rc = rpl_strbuf_printf(&sb,
                               "- headroom: at its roof the kernel would save %.1f%% of its "
                               "time\n",
                               100.0 * head);
    return finish_text(out, &sb, origin, rc);
}

/* "  - `s_waitcnt vmcnt(0)` (kern.hip:12): 38.0% of the latency cycles, 85% of them stalls" */
static int hottest_text(rpl_strbuf *sb, const cJSON *hot)
{
    const cJSON *h;
    unsigned shown = 0;
    int rc = 0;

    cJSON_ArrayForEach(h, hot)
    {
        const char *src = string_or(h, "source", "");
        double frac = number_or(h, "latency_fraction", NAN),
               lat = number_or(h, "latency_cycles", NAN);
        double stall = number_or(h, "stall_cycles", NAN), hits = number_or(h, "hits", NAN);
        if (rc != 0 || shown == HOT_MAX)
            break;
        if (shown++ == 0)
            rc = rpl_strbuf_puts(sb, "- the instructions of the most latency cycles:\n");
        if (rc == 0 && (rc = rpl_strbuf_puts(sb, "  - `")) == 0 &&
            (rc = put_text(sb, string_or(h, "isa", "?"))) == 0)
            rc = rpl_strbuf_puts(sb, "`");
        if (rc == 0 && src[0] && (rc = rpl_strbuf_puts(sb, " (")) == 0 &&
            (rc = put_text(sb, src)) == 0)
            rc = rpl_strbuf_puts(sb, ")");
        if (rc == 0 && !isnan(frac))
            rc = rpl_strbuf_printf(sb, ": %.1f%% of the latency cycles", 100.0 * frac);
        if (rc == 0 && !isnan(stall) && !isnan(lat) && lat > 0)
            rc = rpl_strbuf_printf(sb, ", %.0f%% of them stalls", 100.0 * stall / lat);
        if (rc == 0 && !isnan(hits))
            rc = rpl_strbuf_printf(sb, ", %.0f executions", hits);
        if (rc == 0)
            rc = rpl_strbuf_puts(sb, "\n");
    }
    return rc;
}

static int att_text(char **out, const cJSON *k, unsigned changes, const char *first)
{
    const cJSON *att = cJSON_GetObjectItemCaseSensitive(k, "att");
    const cJSON *mix = cJSON_GetObjectItemCaseSensitive(att, "instruction_mix"), *e;
    double stall = number_or(att, "stall_fraction", NAN),
           idle = number_or(att, "idle_fraction", NAN);
    double ipc = number_or(att, "ipc", NAN), lat = number_or(att, "mem_latency_cycles", NAN);
    double total = number_or(att, "instructions", NAN);
    rpl_strbuf sb = RPL_STRBUF_INIT;
    size_t origin, classes = 0;
    bool used[32] = {false};
    int rc;

    if (!cJSON_IsObject(att))
        return 0;
    rc = origin_line(&sb, changes, first);
    origin = sb.len;
    /* The classes largest first, those of 1% or more. */
    for (;;) {
        const cJSON *top = NULL;
        size_t i = 0, top_i = 0;
        cJSON_ArrayForEach(e, mix)
        {
            if (i < sizeof(used) / sizeof(used[0]) && !used[i] && e->valuedouble >= 0.01 &&
                (!top || e->valuedouble > top->valuedouble)) {
                top = e;
                top_i = i;
            }
            i++;
        }
        if (rc != 0 || !top)
            break;
        used[top_i] = true;
        rc = rpl_strbuf_puts(&sb, classes++ ? ", " : "- instruction mix of the traced waves: ");
        if (rc == 0)
            rc = put_text(&sb, top->string ? top->string : "?");
        if (rc == 0)
            rc = rpl_strbuf_printf(&sb, " %.1f%%", 100.0 * top->valuedouble);
    }
    if (rc == 0 && classes)
        rc = rpl_strbuf_puts(&sb, "\n");
    if (rc == 0 && !isnan(total))
        rc = rpl_strbuf_printf(&sb, "- %.0f instructions traced\n", total);
    if (rc == 0 && !isnan(stall))
        rc = rpl_strbuf_printf(&sb, "- stalls: %.1f%% of the instructions' latency\n",
                               100.0 * stall);
    if (rc == 0 && !isnan(idle))
        rc = rpl_strbuf_printf(&sb, "- idle: %.1f%% of the waves' time\n", 100.0 * idle);
    if (rc == 0 && !isnan(ipc))
        rc = rpl_strbuf_printf(&sb, "- %.2f instructions per wave cycle\n", ipc);
    if (rc == 0 && !isnan(lat))
        rc = rpl_strbuf_printf(&sb, "- memory instructions wait %.0f cycles on average\n", lat);
    if (rc == 0)
        rc = hottest_text(&sb, cJSON_GetObjectItemCaseSensitive(att, "hottest"));
    return finish_text(out, &sb, origin, rc);
}

int rpl_llm_analysis_facts(const rpl_llm_analysis *a, const char *kernel, unsigned changes,
                           rpl_llm_facts *out)
{
    const cJSON *roof = NULL, *an = NULL;
    int rc;

    if ((rc = find_entry(&roof, a->roofline, kernel)) != 0)
        return rc;
    if (roof)
        an =
            entry_named(a->analysis, cJSON_GetObjectItemCaseSensitive(roof, "kernel")->valuestring);
    if (!an && (rc = find_entry(&an, a->analysis, kernel)) != 0)
        return rc;
    if (!roof && !an)
        return RPL_ENOTFOUND;
    /* analysis.json repeats the roofline numbers: enough when roofline.json lacks the kernel */
    if (!out->roofline &&
        (rc = roofline_text(&out->roofline, roof ? roof : an, changes, a->origin)) != 0)
        return rc;
    if (an && !out->bottleneck &&
        (rc = bottleneck_text(&out->bottleneck, an, changes, a->origin)) != 0)
        return rc;
    if (an && !out->att && (rc = att_text(&out->att, an, changes, a->origin)) != 0)
        return rc;
    return 0;
}
