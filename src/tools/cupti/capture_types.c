/*
 * The demangled kernel name, from which the capture takes the parameter
 * types (rpl_param_types in rpl/snapshot.h).
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"

/* libstdc++'s demangler (the C++ ABI's entry point; librpl_cupti.so links libstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *cc_demangle(const char *mangled)
{
    int status = -1;
    char *out;

    if (!mangled || strncmp(mangled, "_Z", 2) != 0)
        return NULL;
    out = __cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}
