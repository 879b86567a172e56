/* Enumeration names kept as tables; see rpl/names.h. */
#include "rpl/names.h"

#include <string.h>

const char *rpl_name_of(const char *const *names, size_t n, long long value, const char *fallback)
{
    if (value < 0 || (unsigned long long)value >= n || !names[value])
        return fallback;
    return names[value];
}

int rpl_name_index(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}
