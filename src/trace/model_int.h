/* Private to src/trace: bulk growth of the model's arrays for the readers. */
#ifndef RPL_TRACE_MODEL_INT_H
#define RPL_TRACE_MODEL_INT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Make room for `more` items after `count` in an array of *cap items of
 * `size` bytes: exactly that many when it must grow (a reader that knows
 * its row count sizes the array once, with no doubling and no copy).
 */
int rpl_trace_array_room(void **items, uint32_t *cap, uint32_t count, uint64_t more, size_t size);

#define RPL_TRACE_ROOM(arr, more)                                                                  \
    rpl_trace_array_room((void **)&(arr).items, &(arr).cap, (arr).count, (more),                   \
                         sizeof(*(arr).items))

struct rpl_trace;

/* Cut the threads back to `count` (a rollback), and their hash with them. */
void rpl_trace_threads_cut(struct rpl_trace *trace, uint32_t count);
/* 0 when `thread` is one of the trace's; else the error, naming the record `what` `id`. */
int rpl_trace_check_thread(const struct rpl_trace *trace, uint32_t thread, const char *what,
                           int64_t id);

#endif
