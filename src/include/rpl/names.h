/*
 * Names of enumeration values kept as tables (designated initializers where
 * the values are not 0, 1, 2, ...):
 *
 *     static const char *const names[] = {[RPL_X_A] = "a", [RPL_X_B] = "b"};
 *
 *     return RPL_NAME_OF(names, x, "unknown");
 */
#ifndef RPL_NAMES_H
#define RPL_NAMES_H

#include <stddef.h>

/* names[value] when value < n and that entry is set, else fallback. */
const char *rpl_name_of(const char *const *names, size_t n, long long value, const char *fallback);

/* rpl_name_of over the whole of the array `names`. */
#define RPL_NAME_OF(names, value, fallback)                                                        \
    rpl_name_of((names), sizeof(names) / sizeof((names)[0]), (long long)(value), (fallback))

/* The index of `name` in names[0..n) (unset entries never match), or -1. */
int rpl_name_index(const char *const *names, size_t n, const char *name);

#define RPL_NAME_INDEX(names, name)                                                                \
    rpl_name_index((names), sizeof(names) / sizeof((names)[0]), (name))

#endif
