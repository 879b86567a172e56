/*
 * Read rocprofv3 ATT output folders into rpl_att_features.  code.json is the
 * only file used: every row is [ISA, 0, line, source, codeobj, vaddr, hit,
 * latency, stall, idle] (rocpd.md §10); the other files of the folder (wave
 * files, occupancy.json, wstates) are not needed for these features.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "rpl/array.h"
#include "rpl/att.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/kernel_filter.h"
#include "rpl/json.h"
#include "rpl/log.h"

#define CODE_JSON_MAX (256u << 20)
#define FOLDER_PREFIX "ui_output_agent_"

static int row_number(const cJSON *row, int i, double *out)
{
    const cJSON *v = cJSON_GetArrayItem(row, i);

    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
        return -1;
    *out = v->valuedouble;
    return 0;
}

/* Count `h` in f's hottest instructions: summed into the same instruction, or kept when hot. */
static void add_hot(rpl_att_features *f, const rpl_att_hot *h)
{
    size_t i;

    for (i = 0; i < f->nhot; i++)
        if (f->hot[i].vaddr == h->vaddr && strcmp(f->hot[i].isa, h->isa) == 0)
            break;
    if (i < f->nhot) {
        f->hot[i].hits += h->hits;
        f->hot[i].latency += h->latency;
        f->hot[i].stall += h->stall;
    } else if (f->nhot < RPL_ATT_HOT) {
        f->hot[f->nhot++] = *h;
        i = f->nhot - 1;
    } else if (h->latency > f->hot[RPL_ATT_HOT - 1].latency) {
        f->hot[RPL_ATT_HOT - 1] = *h;
        i = RPL_ATT_HOT - 1;
    } else {
        return;
    }
    for (; i > 0 && f->hot[i].latency > f->hot[i - 1].latency; i--) { /* most latency first */
        rpl_att_hot t = f->hot[i];
        f->hot[i] = f->hot[i - 1];
        f->hot[i - 1] = t;
    }
}

/* `src` into dst[size], cut at a UTF-8 character boundary. */
static void copy_cut(char *dst, size_t size, const char *src)
{
    size_t n = rpl_utf8_cut(src, strlen(src), size - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void note_hot(rpl_att_features *f, const cJSON *row, const char *isa, double hit, double lat,
                     double stall)
{
    const cJSON *src = cJSON_GetArrayItem(row, 3), *addr = cJSON_GetArrayItem(row, 5);
    rpl_att_hot h = {.hits = hit, .latency = lat, .stall = stall};

    if (lat <= 0)
        return;
    copy_cut(h.isa, sizeof(h.isa), isa);
    if (cJSON_IsString(src))
        copy_cut(h.source, sizeof(h.source), src->valuestring);
    h.vaddr = cJSON_IsNumber(addr) && isfinite(addr->valuedouble) ? addr->valuedouble : -1;
    add_hot(f, &h);
}

static int add_row(rpl_att_features *f, const cJSON *row, int index)
{
    const cJSON *isa = cJSON_GetArrayItem(row, 0);
    double hit, lat, stall, idle;
    rpl_isa_class c;

    if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) < 10 || !cJSON_IsString(isa) ||
        row_number(row, 6, &hit) || row_number(row, 7, &lat) || row_number(row, 8, &stall) ||
        row_number(row, 9, &idle))
        return rpl_error_set(RPL_EINPUT,
                             "code.json: code[%d] is not [isa, _, line, source, codeobj, vaddr, "
                             "hit, latency, stall, idle] with counts >= 0",
                             index);
    if (isa->valuestring[0] == ';') {
        if (!f->kernel[0]) {
            const char *name = isa->valuestring + 1;
            while (*name == ' ')
                name++;
            snprintf(f->kernel, sizeof(f->kernel), "%s", name);
        }
        return 0;
    }
    c = rpl_isa_classify(isa->valuestring);
    f->hits[c] += hit;
    f->total_hits += hit;
    if (rpl_isa_sets_exec(isa->valuestring))
        f->exec_hits += hit;
    f->latency += lat;
    f->stall += stall;
    f->idle += idle;
    if (c == RPL_ISA_VMEM || c == RPL_ISA_SMEM || c == RPL_ISA_LDS || c == RPL_ISA_WAITCNT)
        f->mem_latency_sum += lat;
    note_hot(f, row, isa->valuestring, hit, lat, stall);
    return 0;
}

/* The ratios from the sums. */
static void finish(rpl_att_features *f)
{
    double mem = f->hits[RPL_ISA_VMEM] + f->hits[RPL_ISA_SMEM] + f->hits[RPL_ISA_LDS];

    for (int c = 0; c < RPL_ISA_CLASSES; c++)
        f->mix[c] = f->total_hits > 0 ? f->hits[c] / f->total_hits : 0;
    f->mem_latency_cycles = mem > 0 ? f->mem_latency_sum / mem : 0;
    f->stall_fraction = f->latency > 0 ? f->stall / f->latency : 0;
    if (f->stall_fraction > 1)
        f->stall_fraction = 1;
    f->idle_fraction = f->latency + f->idle > 0 ? f->idle / (f->latency + f->idle) : 0;
    f->ipc = f->latency + f->idle > 0 ? f->total_hits / (f->latency + f->idle) : 0;
}

void rpl_att_features_add(rpl_att_features *a, const rpl_att_features *b)
{
    for (int c = 0; c < RPL_ISA_CLASSES; c++)
        a->hits[c] += b->hits[c];
    a->total_hits += b->total_hits;
    a->exec_hits += b->exec_hits;
    a->latency += b->latency;
    a->stall += b->stall;
    a->idle += b->idle;
    a->mem_latency_sum += b->mem_latency_sum;
    for (size_t i = 0; i < b->nhot; i++)
        add_hot(a, &b->hot[i]);
    finish(a);
}

/* Contains "sampl" in any case ("PC_Samples", "pc_sampling"). */
static bool mentions_sampling(const char *s)
{
    for (; s && *s; s++)
        if (strncasecmp(s, "sampl", 5) == 0)
            return true;
    return false;
}

/*
 * The PC-sampling variant of code.json: its instruction rows carry no
 * thread-trace counts, and a top-level key or the "header" speaks of samples.
 */
static bool is_pc_sampling(const cJSON *doc)
{
    const cJSON *item;

    cJSON_ArrayForEach(item, doc)
    {
        if (mentions_sampling(item->string))
            return true;
        if (item->string && strcmp(item->string, "header") == 0 && cJSON_IsString(item) &&
            mentions_sampling(item->valuestring))
            return true;
    }
    return false;
}

int rpl_att_parse_code_json(rpl_att_features *out, const char *text, size_t len)
{
    cJSON *doc = NULL;
    const cJSON *code, *row;
    int rc, i = 0;

    memset(out, 0, sizeof(*out));
    out->dispatch_id = -1;
    rc = rpl_json_parse(&doc, text, len, "code.json");
    if (rc)
        return rc;
    code = cJSON_GetObjectItemCaseSensitive(doc, "code");
    if (!cJSON_IsArray(code)) {
        cJSON_Delete(doc);
        return rpl_error_set(RPL_EINPUT, "code.json has no \"code\" array");
    }
    cJSON_ArrayForEach(row, code)
    {
        rc = add_row(out, row, i++);
        if (rc)
            break;
    }
    if (!rc && out->total_hits <= 0 && is_pc_sampling(doc))
        rc = rpl_error_set(RPL_EUSAGE,
                           "code.json is PC-sampling output (sampled program counters, no "
                           "thread-trace hit, latency, stall and idle counts); --att reads the "
                           "thread-trace folders of rocprofv3 --att");
    cJSON_Delete(doc);
    if (rc)
        return rc;
    if (out->total_hits <= 0)
        return rpl_error_set(RPL_EINPUT,
                             "code.json records no executed instruction (no wave of this "
                             "dispatch ran on the traced compute unit)");
    if (!isfinite(out->total_hits + out->latency + out->stall + out->idle + out->exec_hits +
                  out->mem_latency_sum))
        return rpl_error_set(RPL_EINPUT, "code.json counts are too large to add up");
    finish(out);
    return 0;
}

static int64_t dispatch_of(const char *name)
{
    const char *p = strstr(name, "_dispatch_");
    char *end;
    long long v;

    if (!p)
        return -1;
    errno = 0;
    v = strtoll(p + 10, &end, 10);
    return errno || end == p + 10 || *end || v < 0 ? -1 : (int64_t)v;
}

/*
 * One folder: 0 with features, 1 when it gives none (warned about), negative
 * for a folder that is not thread trace at all (PC sampling): refused.
 */
static int read_folder(rpl_att_features *f, const char *dir, const char *name)
{
    char *path = NULL, *text = NULL;
    size_t len = 0;
    int rc = rpl_path_join(&path, dir, "code.json");

    if (!rc)
        rc = rpl_file_read_all(path, CODE_JSON_MAX, &text, &len);
    if (!rc)
        rc = rpl_att_parse_code_json(f, text, len);
    free(path);
    free(text);
    if (rc == RPL_EUSAGE) { /* said what it is: no features can come from it */
        rpl_error_prefix("ATT folder '%s'", dir);
        return RPL_EINPUT;
    }
    if (rc == RPL_ENOMEM)
        return rc;
    if (rc) {
        rpl_log_warn("ATT folder '%s' skipped: %s", dir, rpl_error_last()->message);
        return 1;
    }
    f->dispatch_id = dispatch_of(name);
    return 0;
}

static int cmp_dispatch(const void *a, const void *b)
{
    const rpl_att_features *x = a, *y = b;

    return (x->dispatch_id > y->dispatch_id) - (x->dispatch_id < y->dispatch_id);
}

static int push(rpl_att_set *set, size_t *cap, const char *dir, const char *name)
{
    int rc = RPL_ARRAY_GROW(set->items, *cap, set->count + 1);

    if (rc != 0)
        return rc;
    rc = read_folder(&set->items[set->count], dir, name);
    if (rc < 0)
        return rc;
    if (rc == 0)
        set->count++;
    else
        set->warnings++;
    return 0;
}

int rpl_att_read(rpl_att_set *out, const char *dir)
{
    const char *base = strrchr(dir, '/');
    size_t cap = 0;
    struct stat st;
    struct dirent *e;
    DIR *d;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    base = base ? base + 1 : dir;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rpl_log_warn("ATT folder '%s' is not a readable directory; no ATT features", dir);
        out->warnings++;
        return 0;
    }
    if (strncmp(base, FOLDER_PREFIX, strlen(FOLDER_PREFIX)) == 0) {
        if ((rc = push(out, &cap, dir, base)) != 0)
            rpl_att_set_release(out);
        return rc;
    }
    d = opendir(dir);
    if (!d) {
        rpl_log_warn("cannot list ATT folder '%s'; no ATT features", dir);
        out->warnings++;
        return 0;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char *sub;
        if (strncmp(e->d_name, FOLDER_PREFIX, strlen(FOLDER_PREFIX)) != 0 ||
            !strstr(e->d_name, "_dispatch_"))
            continue;
        rc = rpl_path_join(&sub, dir, e->d_name);
        if (rc)
            break;
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            rc = push(out, &cap, sub, e->d_name);
        free(sub);
    }
    closedir(d);
    if (rc == 0 && out->count == 0 && out->warnings == 0) {
        rpl_log_warn("'%s' holds no %s*_dispatch_* folder; no ATT features", dir, FOLDER_PREFIX);
        out->warnings++;
    }
    if (rc == 0)
        qsort(out->items, out->count, sizeof(*out->items), cmp_dispatch);
    else
        rpl_att_set_release(out);
    return rc;
}

void rpl_att_set_release(rpl_att_set *set)
{
    free(set->items);
    set->items = NULL;
    set->count = 0;
}
