/*
 * Freeing the owned members of a struct in one call:
 *
 *     RPL_FREE_ALL(p->name, p->items, p->log, p);
 *
 * frees each pointer given, in order (NULL ones too, as free() does), in
 * place of one free() line per member.
 */
#ifndef RPL_FREE_ALL_H
#define RPL_FREE_ALL_H

#include <stddef.h>
#include <stdlib.h>

/* free() the n pointers at ptrs, in order. */
static inline void rpl_free_all(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

/* rpl_free_all for the pointers listed (each converts to void *). */
#define RPL_FREE_ALL(...)                                                                          \
    rpl_free_all((void *const[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

#endif
