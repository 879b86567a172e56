/* String interning for the trace model: one copy of each distinct string. */
#ifndef RPL_TRACE_STRPOOL_H
#define RPL_TRACE_STRPOOL_H

#include <stddef.h>

struct rpl_strpool;

struct rpl_strpool *rpl_strpool_new(void);
void rpl_strpool_free(struct rpl_strpool *pool);
/* The interned copy of s[0..len), NUL-terminated; NULL when out of memory. */
const char *rpl_strpool_intern(struct rpl_strpool *pool, const char *s, size_t len);

#endif
