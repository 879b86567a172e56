/* Freeing lists of heap pointers; see rpl/free.h. */
#include "rpl/free.h"

#include <stdlib.h>

void rpl_free_each(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

void rpl_free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}
