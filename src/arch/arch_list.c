/* A list of architectures named on the command line ("gfx90a,sm_90"). */
#include <string.h>

#include "rpl/arch.h"
#include "rpl/error.h"

int rpl_arch_list_parse(const rpl_arch **archs, size_t *n, size_t max, const char *arg)
{
    const char *p = arg;

    while (*p) {
        size_t len = strcspn(p, ",");
        char name[64];
        const rpl_arch *a;

        if (len == 0 || len >= sizeof(name))
            return rpl_error_set(RPL_EUSAGE, "bad --arch value '%s'", arg);
        memcpy(name, p, len);
        name[len] = '\0';
        a = rpl_arch_find(name);
        if (!a)
            return rpl_error_set(RPL_EUSAGE,
                                 "unknown architecture '%s' (see docs/CLI.md for the list)", name);
        if (*n == max)
            return rpl_error_set(RPL_EUSAGE, "too many --arch values");
        archs[(*n)++] = a;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}
