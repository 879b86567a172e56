/*
 * Growable arrays kept as a pointer, a count and a capacity by their owner
 * (in the manner of git's ALLOC_GROW):
 *
 *     if ((rc = RPL_ARRAY_GROW(v->items, v->cap, v->count + 1)) != 0)
 *         return rc;
 *     v->items[v->count++] = item;
 *
 * The capacity doubles (from 16), so n pushes cost O(n) copying.
 */
#ifndef RPL_ARRAY_H
#define RPL_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Make room for `need` elements of `size` bytes in the array whose pointer
 * is at `itemsp` and whose capacity is *cap.  Returns 0, or RPL_ENOMEM
 * when the allocation fails or its size overflows (the array is unchanged).
 */
int rpl_array_grow(void *itemsp, size_t *cap, size_t need, size_t size);

/* rpl_array_grow for the array `items` (any pointer lvalue) of capacity `cap` (a size_t lvalue). */
#define RPL_ARRAY_GROW(items, cap, need) rpl_array_grow(&(items), &(cap), (need), sizeof(*(items)))

/*
 * Room for one more element: grows the array, zeroes element *count, counts
 * it and returns its address; NULL when out of memory (nothing changed).
 */
void *rpl_array_push(void *itemsp, size_t *count, size_t *cap, size_t size);

#define RPL_ARRAY_PUSH(items, count, cap)                                                          \
    rpl_array_push(&(items), &(count), &(cap), sizeof(*(items)))

/*
 * Room for one element at index `at` (at most *count): grows the array,
 * moves the elements from `at` on up by one, zeroes element `at`, counts it
 * and returns its address; NULL when out of memory (nothing changed).
 */
void *rpl_array_insert(void *itemsp, size_t *count, size_t *cap, size_t size, size_t at);

#define RPL_ARRAY_INSERT(items, count, cap, at)                                                    \
    rpl_array_insert(&(items), &(count), &(cap), sizeof(*(items)), (at))

/*
 * Binary search of the n elements of `size` bytes at `items`, for which
 * below(element, key) is true for a leading run and false after it (an
 * array sorted by what `below` compares): the index of the first element
 * for which it is false, n when none is.  That is where `key` is, or where
 * inserting it keeps the order.
 */
size_t rpl_lower_bound(const void *items, size_t n, size_t size, const void *key,
                       bool (*below)(const void *element, const void *key));

#endif
