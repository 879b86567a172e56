/* Growable arrays (see rpl/array.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/array.h"
#include "rpl/error.h"

#define FIRST_CAP 16

int rpl_array_grow(void *itemsp, size_t *cap, size_t need, size_t size)
{
    size_t ncap;
    void *items;

    if (need <= *cap)
        return 0;
    if (size == 0 || need > SIZE_MAX / size)
        return rpl_error_oom();
    ncap = *cap ? *cap : FIRST_CAP;
    while (ncap < need)
        ncap = ncap > SIZE_MAX / size / 2 ? need : ncap * 2;
    /* The pointer is read and written through memcpy: itemsp points to a
     * pointer of the caller's element type, not to a void *. */
    memcpy(&items, itemsp, sizeof(items));
    if (!(items = realloc(items, ncap * size)))
        return rpl_error_oom();
    memcpy(itemsp, &items, sizeof(items));
    *cap = ncap;
    return 0;
}

void *rpl_array_insert(void *itemsp, size_t *count, size_t *cap, size_t size, size_t at)
{
    char *items;

    if (*count == SIZE_MAX) {
        rpl_error_oom();
        return NULL;
    }
    if (rpl_array_grow(itemsp, cap, *count + 1, size) != 0)
        return NULL;
    memcpy(&items, itemsp, sizeof(items));
    items += at * size;
    memmove(items + size, items, (*count - at) * size);
    memset(items, 0, size);
    (*count)++;
    return items;
}

void *rpl_array_push(void *itemsp, size_t *count, size_t *cap, size_t size)
{
    return rpl_array_insert(itemsp, count, cap, size, *count);
}

size_t rpl_lower_bound(const void *items, size_t n, size_t size, const void *key,
                       bool (*below)(const void *element, const void *key))
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (below((const char *)items + mid * size, key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
