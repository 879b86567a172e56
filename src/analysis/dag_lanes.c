/* DAG builder: each operation's lane (stream, queue or process) and the lanes' table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/error.h"

typedef struct lane_key {
    int64_t pid, id; /* sort key: (pid, kind, id) */
    uint8_t kind;
    uint32_t ref;  /* stream or queue index, RPL_NONE for a process lane */
    uint32_t lane; /* number before sorting */
} lane_key;

static int cmp_lane_key(const void *a, const void *b)
{
    const lane_key *x = a, *y = b;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->lane > y->lane) - (x->lane < y->lane);
}

static char *lane_name(const rpl_trace *t, uint8_t kind, uint32_t ref, int64_t pid)
{
    char buf[64];
    const rpl_queue *q = NULL;

    if (kind == RPL_DAG_LANE_STREAM)
        q = &t->streams.items[ref];
    else if (kind == RPL_DAG_LANE_QUEUE)
        q = &t->queues.items[ref];
    if (q && q->name && q->name[0])
        return strdup(q->name);
    if (q)
        snprintf(buf, sizeof(buf), "%s %lld", kind == RPL_DAG_LANE_STREAM ? "Stream" : "Queue",
                 (long long)q->id);
    else
        snprintf(buf, sizeof(buf), "process %lld", (long long)pid);
    return strdup(buf);
}

/* count[2p]: streams first used by process p; count[2p+1]: queues (first_user: scratch). */
static void count_first_users(const rpl_dag_builder *b, const rpl_dag_op *ops, uint32_t nops,
                              uint32_t *first_user, uint32_t *count)
{
    uint32_t nstreams = b->trace->streams.count, nqueues = b->trace->queues.count;

    for (uint32_t i = 0; i < nstreams + nqueues; i++)
        first_user[i] = RPL_NONE;
    for (uint32_t i = 0; i < nops; i++) {
        const rpl_dag_op v = ops[i];
        uint32_t p = b->process_of[i];

        if (v.stream != RPL_NONE && first_user[v.stream] == RPL_NONE) {
            first_user[v.stream] = p;
            count[2 * p]++;
        }
        if (v.queue != RPL_NONE && first_user[nstreams + v.queue] == RPL_NONE) {
            first_user[nstreams + v.queue] = p;
            count[2 * p + 1]++;
        }
    }
}

/*
 * Each operation's lane slot (stream s, queue nstreams + q, or process
 * nstreams + nqueues + p); slots get lane numbers in first use, in lane_of.
 * Returns the number of lanes.
 */
static uint32_t pick_lanes(const rpl_dag_builder *b, rpl_dag_op *ops, uint32_t nops,
                           const uint32_t *count, uint32_t *lane_of)
{
    uint32_t nstreams = b->trace->streams.count, nqueues = b->trace->queues.count, nlanes = 0;

    for (uint32_t i = 0; i < nstreams + nqueues + b->process_count; i++)
        lane_of[i] = RPL_NONE;
    for (uint32_t i = 0; i < nops; i++) {
        const rpl_dag_op v = ops[i];
        uint32_t p = b->process_of[i], slot;
        bool streams = count[2 * p] >= 2 || (count[2 * p] == 1 && count[2 * p + 1] <= 1);

        if (v.stream != RPL_NONE && (streams || v.queue == RPL_NONE))
            slot = v.stream;
        else if (v.queue != RPL_NONE)
            slot = nstreams + v.queue;
        else
            slot = nstreams + nqueues + p;
        if (lane_of[slot] == RPL_NONE)
            lane_of[slot] = nlanes++;
        ops[i].lane = lane_of[slot];
    }
    return nlanes;
}

/* The sort key of slot s, numbered `lane` in first use. */
static lane_key slot_key(const rpl_dag_builder *b, uint32_t s, uint32_t lane)
{
    const rpl_trace *t = b->trace;
    uint32_t nstreams = t->streams.count, nqueues = t->queues.count;

    if (s < nstreams)
        return (lane_key){t->streams.items[s].pid, t->streams.items[s].id, RPL_DAG_LANE_STREAM, s,
                          lane};
    if (s < nstreams + nqueues)
        return (lane_key){t->queues.items[s - nstreams].pid, t->queues.items[s - nstreams].id,
                          RPL_DAG_LANE_QUEUE, s - nstreams, lane};
    return (lane_key){b->pids[s - nstreams - nqueues], 0, RPL_DAG_LANE_PROCESS, RPL_NONE, lane};
}

/* dag->lanes in (pid, kind, trace id) order, and the operations' lanes renumbered to it. */
static int number_lanes(rpl_dag_builder *b, rpl_dag_op *ops, uint32_t nops, const uint32_t *lane_of,
                        uint32_t nlanes)
{
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    uint32_t nslots = t->streams.count + t->queues.count + b->process_count;
    lane_key *keys = malloc(((size_t)nlanes + 1) * sizeof(*keys));
    uint32_t *remap = malloc(((size_t)nlanes + 1) * sizeof(*remap));
    int rc = 0;

    dag->lanes = calloc((size_t)nlanes + 1, sizeof(*dag->lanes));
    if (!dag->lanes || !keys || !remap) {
        rc = rpl_error_oom();
        goto done;
    }
    for (uint32_t s = 0; s < nslots; s++)
        if (lane_of[s] != RPL_NONE)
            keys[lane_of[s]] = slot_key(b, s, lane_of[s]);
    qsort(keys, nlanes, sizeof(*keys), cmp_lane_key);
    for (uint32_t l = 0; l < nlanes; l++) {
        rpl_dag_lane *lane = &dag->lanes[l];

        remap[keys[l].lane] = l;
        lane->kind = keys[l].kind;
        lane->pid = keys[l].pid;
        lane->ref = keys[l].ref;
        lane->name = lane_name(t, lane->kind, lane->ref, lane->pid);
        if (!lane->name) {
            rc = rpl_error_oom();
            goto done;
        }
        dag->lane_count = l + 1;
    }
    dag->lane_count = nlanes;
    for (uint32_t i = 0; i < nops; i++)
        ops[i].lane = remap[ops[i].lane];
done:
    free(keys);
    free(remap);
    return rc;
}

/*
 * Choose each operation's lane.  A process uses streams when its operations
 * name two or more streams, or one stream and at most one queue; otherwise
 * queues (a HIP trace without stream tracking puts everything on stream 0).
 * An operation lacking the chosen kind takes the other; one with neither
 * gets its process's lane.  Lanes are numbered by (pid, kind, trace id).
 */
int rpl_dag_assign_lanes(rpl_dag_builder *b, rpl_dag_op *ops, uint32_t nops)
{
    const rpl_trace *t = b->trace;
    uint32_t nstreams = t->streams.count, nqueues = t->queues.count, np = b->process_count;
    uint32_t *first_user = malloc(((size_t)nstreams + nqueues + 1) * sizeof(uint32_t));
    uint32_t *lane_of = malloc(((size_t)nstreams + nqueues + np + 1) * sizeof(uint32_t));
    uint32_t *count = calloc((size_t)np * 2 + 1, sizeof(uint32_t));
    int rc = 0;

    if (!first_user || !lane_of || !count)
        rc = rpl_error_oom();
    if (rc == 0) {
        count_first_users(b, ops, nops, first_user, count);
        rc = number_lanes(b, ops, nops, lane_of, pick_lanes(b, ops, nops, count, lane_of));
    }
    free(first_user);
    free(lane_of);
    free(count);
    return rc;
}
