/*
 * The host threads of the trace model (see rpl/trace.h): each distinct
 * (pid, tid) once, found again through an open-addressing hash of indices,
 * so that a record names its thread in 4 bytes instead of 16.
 */
#include <stdlib.h>

#include "model_int.h"
#include "rpl/error.h"
#include "rpl/trace.h"

static uint32_t thread_hash(int64_t pid, int64_t tid)
{
    uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ull ^ (uint64_t)tid;

    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return (uint32_t)h;
}

/* The slot of (pid, tid): the one holding it, else the empty one where it goes. */
static uint32_t find_slot(const rpl_trace *t, int64_t pid, int64_t tid)
{
    uint32_t mask = t->thread_slot_count - 1, s = thread_hash(pid, tid) & mask;

    for (; t->thread_slots[s] != RPL_NONE; s = (s + 1) & mask) {
        const rpl_thread *th = &t->threads.items[t->thread_slots[s]];

        if (th->pid == pid && th->tid == tid)
            break;
    }
    return s;
}

/* Every thread into the (empty) slots again. */
static void fill_slots(rpl_trace *t)
{
    for (uint32_t s = 0; s < t->thread_slot_count; s++)
        t->thread_slots[s] = RPL_NONE;
    for (uint32_t i = 0; i < t->threads.count; i++)
        t->thread_slots[find_slot(t, t->threads.items[i].pid, t->threads.items[i].tid)] = i;
}

/* Twice the slots (or the first 64) once they would be more than half full. */
static int grow_slots(rpl_trace *t)
{
    uint64_t n = t->thread_slot_count ? 2 * (uint64_t)t->thread_slot_count : 64;
    uint32_t *slots;

    if (2 * ((uint64_t)t->threads.count + 1) <= t->thread_slot_count)
        return 0;
    if (n > (uint64_t)1 << 31)
        return rpl_error_set(RPL_EINPUT, "trace has too many host threads");
    if (!(slots = malloc((size_t)n * sizeof(*slots))))
        return rpl_error_oom();
    free(t->thread_slots);
    t->thread_slots = slots;
    t->thread_slot_count = (uint32_t)n;
    fill_slots(t);
    return 0;
}

uint32_t rpl_trace_thread(rpl_trace *t, int64_t pid, int64_t tid)
{
    uint32_t s;

    if (grow_slots(t))
        return RPL_NONE;
    s = find_slot(t, pid, tid);
    if (t->thread_slots[s] != RPL_NONE)
        return t->thread_slots[s];
    if (RPL_TRACE_ROOM(t->threads, 1))
        return RPL_NONE;
    t->threads.items[t->threads.count] = (rpl_thread){pid, tid};
    t->thread_slots[s] = t->threads.count;
    return t->threads.count++;
}

void rpl_trace_threads_cut(rpl_trace *t, uint32_t count)
{
    if (count >= t->threads.count)
        return;
    t->threads.count = count;
    fill_slots(t);
}

int rpl_trace_check_thread(const rpl_trace *t, uint32_t thread, const char *what, int64_t id)
{
    if (thread < t->threads.count)
        return 0;
    /* RPL_NONE from a failed rpl_trace_thread: its error stands. */
    if (thread == RPL_NONE && rpl_error_last()->code != 0)
        return rpl_error_last()->code;
    return rpl_error_set(RPL_EUSAGE, "%s %lld names thread %u; the trace has %u", what,
                         (long long)id, thread, t->threads.count);
}
