/* Whole numbers from text (see rpl/number.h). */
#include <errno.h>
#include <stdlib.h>

#include "rpl/number.h"

bool rpl_parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end;

    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}
