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

#endif
