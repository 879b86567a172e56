/*
 * Freeing the heap members of a struct in one call:
 *
 *     void thing_free(thing *t)
 *     {
 *         if (!t)
 *             return;
 *         RPL_FREE_EACH(t->name, t->path, t->values, t);
 *     }
 *
 * The pointers are freed in the order given, so the struct itself goes last.
 */
#ifndef RPL_FREE_H
#define RPL_FREE_H

#include <stddef.h>

/* free() each of the n pointers of ptrs (NULL ones are fine, as for free()). */
void rpl_free_each(void *const *ptrs, size_t n);

/* rpl_free_each over the argument list (object pointers, not const-qualified). */
#define RPL_FREE_EACH(...)                                                                         \
    rpl_free_each((void *const[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

/* Frees the n strings of v, then v (v may be NULL when n is 0). */
void rpl_free_strings(char **v, size_t n);

#endif
