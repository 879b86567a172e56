/*
 * Queues (tool_int.h).  The application writes AQL packets straight into
 * a queue's ring, so a wrapper around hsa_queue_create alone would see
 * none of them: each queue is created as an intercept queue instead, whose
 * handler ROCr calls with every packet on the thread that rings the
 * doorbell, before the packet reaches the hardware.  The handler forwards
 * packets through `writer` unchanged, except the one dispatch it captures.
 */
#include <stdlib.h>
#include <string.h>

#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/hsa.h"
#include "tool_int.h"

/* The kernel to capture when this dispatch is the one, else NULL (lock held). */
static const ch_kernel *pick(const unsigned char *pkt, uint64_t *ordinal)
{
    uint64_t kernel_object;
    const ch_kernel *k;

    if (ch_g.done || rpl_aql_packet_type(pkt) != RPL_AQL_KERNEL_DISPATCH)
        return NULL;
    memcpy(&kernel_object, pkt + 32, sizeof(kernel_object)); /* AQL: little endian, x86-64 too */
    k = ch_kernels_find(&ch_g.kernels, kernel_object);
    if (!k || !ch_config_selects(&ch_g.cfg, k->name, k->demangled))
        return NULL;
    return ch_config_count(&ch_g.cfg, ordinal) ? k : NULL;
}

static void on_packets(const void *pkts, uint64_t count, uint64_t user_pkt_index, void *data,
                       rpl_hsa_packet_writer writer)
{
    const unsigned char *p = pkts;
    const ch_queue *q = data;
    uint64_t i, ordinal;

    pthread_mutex_lock(&ch_g.lock);
    for (i = 0; i < count; i++) {
        const unsigned char *pkt = p + i * RPL_AQL_PACKET_BYTES;
        const ch_kernel *k = pick(pkt, &ordinal);

        if (!k)
            continue;
        if (i > 0)
            writer(p, i);
        /* The capture is final either way: later dispatches pass through. */
        ch_g.done = true;
        ch_capture(q, pkt, k, ordinal, writer);
        pthread_mutex_unlock(&ch_g.lock);
        if (count - i - 1 > 0)
            writer(pkt + RPL_AQL_PACKET_BYTES, count - i - 1);
        return;
    }
    pthread_mutex_unlock(&ch_g.lock);
    writer(pkts, count);
}

static int remember(hsa_queue_t *queue, hsa_agent_t agent, ch_queue **out)
{
    ch_queue *q = calloc(1, sizeof(*q));

    if (!q)
        return rpl_error_oom();
    if (RPL_ARRAY_GROW(ch_g.queues, ch_g.cap_queues, ch_g.nqueues + 1) != 0) {
        free(q);
        return RPL_ENOMEM;
    }
    q->queue = queue;
    q->agent = agent;
    ch_g.queues[ch_g.nqueues++] = q;
    *out = q;
    return 0;
}

static hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                 void (*callback)(hsa_status_t, hsa_queue_t *, void *), void *data,
                                 uint32_t private_segment_size, uint32_t group_segment_size,
                                 hsa_queue_t **queue)
{
    hsa_status_t st;
    ch_queue *q = NULL;
    bool done;

    pthread_mutex_lock(&ch_g.lock);
    done = ch_g.done;
    pthread_mutex_unlock(&ch_g.lock);
    if (done) /* nothing left to capture: a plain queue costs the application nothing */
        return ch_g.core.hsa_queue_create_fn(agent, size, type, callback, data,
                                             private_segment_size, group_segment_size, queue);
    st = ch_g.amd.hsa_amd_queue_intercept_create_fn(
        agent, size, type, callback, data, private_segment_size, group_segment_size, queue);
    if (st != HSA_STATUS_SUCCESS)
        return st;
    pthread_mutex_lock(&ch_g.lock);
    if (remember(*queue, agent, &q) != 0) {
        ch_say("out of memory; dispatches on a new queue are not captured");
        q = NULL;
    }
    pthread_mutex_unlock(&ch_g.lock);
    if (q &&
        ch_g.amd.hsa_amd_queue_intercept_register_fn(*queue, on_packets, q) != HSA_STATUS_SUCCESS)
        ch_say("could not intercept a queue; its dispatches are not captured");
    return st;
}

static hsa_status_t queue_destroy(hsa_queue_t *queue)
{
    hsa_status_t st = ch_g.core.hsa_queue_destroy_fn(queue);
    size_t i;

    if (st != HSA_STATUS_SUCCESS)
        return st;
    pthread_mutex_lock(&ch_g.lock);
    for (i = 0; i < ch_g.nqueues; i++) {
        if (ch_g.queues[i]->queue != queue)
            continue;
        free(ch_g.queues[i]);
        ch_g.queues[i] = ch_g.queues[--ch_g.nqueues];
        break;
    }
    pthread_mutex_unlock(&ch_g.lock);
    return st;
}

void ch_hook_queues(rpl_hsa_api_table *t)
{
    t->core_->hsa_queue_create_fn = queue_create;
    t->core_->hsa_queue_destroy_fn = queue_destroy;
}
