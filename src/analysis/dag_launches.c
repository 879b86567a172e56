/*
 * The launch table of dag_deps.c: which lane a stream handle names at a
 * time.  Its contract: for (pid, handle, time), the lane of the launch
 * latest at or before the time, else of the first after.  Only where the
 * lane changes along a handle's launches in time order does an entry
 * matter, so the table keeps the first launch of every run of one lane:
 * the answers are those of a table of every launch.
 *
 * A handle names one stream for its whole life in nearly every program, so
 * the launches are first counted per (pid, handle) in a small hash table;
 * a handle that launched on one lane needs one entry.  Only the launches of
 * handles seen on several lanes (a stream destroyed and its address reused)
 * are listed, sorted and cut into runs.  Memory follows the handles, not
 * the launches (a million launches on eight streams: eight entries).
 */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/error.h"

typedef struct key_slot {
    int64_t pid;
    const char *handle; /* interned: compared by address; NULL: a free slot */
    int64_t time;       /* the earliest launch */
    uint32_t lane;      /* of the earliest launch */
    bool lanes;         /* launched on more than one lane */
} key_slot;

typedef struct key_set {
    key_slot *slots;
    uint32_t cap, count, several; /* cap: a power of two */
} key_set;

static uint32_t slot_of(const key_set *s, int64_t pid, const char *handle)
{
    uint64_t h = ((uint64_t)(uintptr_t)handle >> 3) ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ULL);
    uint32_t i = (uint32_t)(h ^ (h >> 29)) & (s->cap - 1);

    while (s->slots[i].handle && (s->slots[i].handle != handle || s->slots[i].pid != pid))
        i = (i + 1) & (s->cap - 1);
    return i;
}

static int grow(key_set *s)
{
    key_set bigger = {calloc((size_t)s->cap * 2, sizeof(key_slot)), s->cap * 2, s->count,
                      s->several};

    if (!bigger.slots)
        return rpl_error_oom();
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->slots[i].handle)
            bigger.slots[slot_of(&bigger, s->slots[i].pid, s->slots[i].handle)] = s->slots[i];
    free(s->slots);
    *s = bigger;
    return 0;
}

static int note(key_set *s, int64_t pid, const char *handle, int64_t time, uint32_t lane)
{
    key_slot *k;
    int rc;

    if (s->count + 1 > s->cap / 2 && (rc = grow(s)) != 0)
        return rc;
    k = &s->slots[slot_of(s, pid, handle)];
    if (!k->handle) {
        *k = (key_slot){pid, handle, time, lane, false};
        s->count++;
        return 0;
    }
    if (k->lane != lane && !k->lanes) {
        k->lanes = true;
        s->several++;
    }
    if (time < k->time) /* one lane: only the time of its first launch matters */
        k->time = time;
    return 0;
}

/* The stream handle of node i's launching call (its process and start in *pid, *issue), or NULL. */
static const char *launch_handle(const rpl_dag_deps *d, uint32_t i, int64_t *pid, int64_t *issue)
{
    const rpl_dag_builder *b = d->b;
    const rpl_dag_launch *l = rpl_dag_node_launch(b, i);

    if (!l || l->handle == RPL_NONE)
        return NULL;
    *pid = b->threads[l->thread].pid;
    *issue = l->issue;
    return b->handles[l->handle];
}

/* Every launch of a handle seen on several lanes, then one entry for each other handle. */
static void list_entries(const rpl_dag_deps *d, const key_set *s, rpl_dag_handle_entry *e,
                         uint32_t *n)
{
    const rpl_dag *dag = d->b->dag;

    *n = 0;
    for (uint32_t i = 0; s->several && i < dag->node_count; i++) {
        int64_t pid, issue;
        const char *h = launch_handle(d, i, &pid, &issue);

        if (h && s->slots[slot_of(s, pid, h)].lanes)
            e[(*n)++] = (rpl_dag_handle_entry){pid, h, issue, dag->nodes[i].lane, 0};
    }
    for (uint32_t k = 0; k < s->cap; k++) {
        const key_slot *ks = &s->slots[k];

        if (ks->handle && !ks->lanes)
            e[(*n)++] = (rpl_dag_handle_entry){ks->pid, ks->handle, ks->time, ks->lane, 0};
    }
}

int rpl_dag_launch_table(rpl_dag_deps *d)
{
    const rpl_dag *dag = d->b->dag;
    key_set s = {calloc(16, sizeof(key_slot)), 16, 0, 0};
    uint64_t n = 0;
    uint32_t kept = 0;
    int rc = s.slots ? 0 : rpl_error_oom();

    for (uint32_t i = 0; rc == 0 && i < dag->node_count; i++) {
        int64_t pid, issue;
        const char *h = launch_handle(d, i, &pid, &issue);

        if (h)
            rc = note(&s, pid, h, issue, dag->nodes[i].lane);
    }
    /* Room for the listed launches: at most one per node, plus one per handle. */
    for (uint32_t i = 0; rc == 0 && s.several && i < dag->node_count; i++)
        n += rpl_dag_node_launch(d->b, i) != NULL;
    n += s.count;
    if (rc == 0 && !(d->launches = malloc((size_t)(n + 1) * sizeof(*d->launches))))
        rc = rpl_error_oom();
    if (rc == 0)
        list_entries(d, &s, d->launches, &d->nlaunches);
    free(s.slots);
    if (rc)
        return rc;
    qsort(d->launches, d->nlaunches, sizeof(*d->launches), rpl_dag_handle_cmp);
    /* Keep the first of every run of one lane along a handle. */
    for (uint32_t i = 0; i < d->nlaunches; i++) {
        const rpl_dag_handle_entry *e = &d->launches[i];

        if (kept == 0 || d->launches[kept - 1].pid != e->pid ||
            d->launches[kept - 1].handle != e->handle || d->launches[kept - 1].value != e->value)
            d->launches[kept++] = *e;
    }
    d->nlaunches = kept;
    return 0;
}
