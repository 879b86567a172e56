/*
 * Which launches a counter run measures (see recorder.h, cr_sample): the
 * launches of each kernel are counted by name; launch i (from 0) of a kernel
 * is measured when skip <= i < skip + per_kernel.  Names are kept in an
 * open-addressing table that doubles at half load.  A plan (the trace-only
 * run's count of each kernel's measured launches) says when the sample is
 * complete.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder.h"
#include "rpl/error.h"

typedef struct sample_entry {
    char *name; /* NULL: empty slot */
    uint32_t seen, measured;
    uint32_t want; /* launches the plan expects measured; 0: not planned */
} sample_entry;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static sample_entry *slot_of(sample_entry *slots, size_t cap, const char *name)
{
    size_t i = (size_t)hash_name(name) & (cap - 1);

    while (slots[i].name && strcmp(slots[i].name, name) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(cr_sample *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    sample_entry *slots = calloc(cap, sizeof(*slots));

    if (!slots)
        return -1;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i].name)
            *slot_of(slots, cap, s->slots[i].name) = s->slots[i];
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

int cr_sample_parse(cr_sample *s, const char *skip, const char *per_kernel)
{
    char *end;
    unsigned long long v;

    memset(s, 0, sizeof(*s));
    s->per_kernel = CR_SAMPLE_ALL;
    if (skip && *skip) {
        v = strtoull(skip, &end, 10);
        if (*end || skip[0] == '-' || v > UINT32_MAX)
            return rpl_error_set(RPL_EUSAGE, "ROCM_PERF_CUPTI_COUNTER_SKIP: '%s' is no count",
                                 skip);
        s->skip = (uint32_t)v;
    }
    if (per_kernel && *per_kernel && strcmp(per_kernel, "all") != 0) {
        v = strtoull(per_kernel, &end, 10);
        if (*end || per_kernel[0] == '-' || v == 0 || v >= CR_SAMPLE_ALL)
            return rpl_error_set(RPL_EUSAGE,
                                 "ROCM_PERF_CUPTI_COUNTER_DISPATCHES: '%s' is neither a count "
                                 "above 0 nor 'all'",
                                 per_kernel);
        s->per_kernel = (uint32_t)v;
    }
    return 0;
}

/* The entry of `name`, made when new; NULL when out of memory. */
static sample_entry *entry(cr_sample *s, const char *name)
{
    sample_entry *e;

    if ((s->count + 1) * 2 > s->cap && grow(s) != 0)
        return NULL;
    e = slot_of(s->slots, s->cap, name);
    if (!e->name) {
        if (!(e->name = strdup(name)))
            return NULL;
        s->count++;
    }
    return e;
}

int cr_sample_plan_load(cr_sample *s, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    unsigned long want;
    int rc = 0;

    if (!f)
        return rpl_error_set(RPL_EIO, "cannot read the sample plan '%s'", path);
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        char *tab = strchr(line, '\t'), *end;
        sample_entry *e;
        line[strcspn(line, "\n")] = '\0';
        want = strtoul(line, &end, 10);
        if (!tab || end != tab || !tab[1] || want >= CR_SAMPLE_ALL) {
            rc = rpl_error_set(RPL_EINPUT, "sample plan '%s': a line is not COUNT<TAB>NAME", path);
            break;
        }
        if (want == 0)
            continue;
        if (!(e = entry(s, tab + 1))) {
            rc = rpl_error_oom();
            break;
        }
        if (e->want == 0)
            s->unfinished++;
        if (want > e->want) /* a name twice (two code objects): the larger count */
            e->want = (uint32_t)want;
    }
    fclose(f);
    s->planned = rc == 0;
    return rc;
}

bool cr_sample_next(cr_sample *s, const char *name)
{
    sample_entry *e;
    uint32_t i;

    s->launches++;
    if (!name || !name[0] || !(e = entry(s, name)))
        return false; /* out of memory: measure nothing more rather than guess */
    i = e->seen++;
    if (i < s->skip || (s->per_kernel != CR_SAMPLE_ALL && i - s->skip >= s->per_kernel))
        return false;
    e->measured++;
    s->measured++;
    if (e->want && e->measured == e->want)
        s->unfinished--;
    return true;
}

bool cr_sample_complete(const cr_sample *s)
{
    return s->planned && s->unfinished == 0;
}

void cr_sample_release(cr_sample *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->slots[i].name);
    free(s->slots);
    memset(s, 0, sizeof(*s));
}
