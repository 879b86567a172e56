/* The templates folder installed with rocm-perf, or the source tree's. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl/error.h"
#include "rpl/templates.h"

/* `dir`/`probe` can be read. */
static bool holds(const char *dir, const char *probe)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s/%s", dir, probe);

    return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

int rpl_templates_dir(char *out, size_t size, const char *given, const char *probe)
{
    char exe[PATH_MAX];
    const char *env = getenv("ROCM_PERF_TEMPLATES");
    ssize_t len;

    if (given || (env && *env)) {
        const char *dir = given ? given : env;
        if (!holds(dir, probe))
            return rpl_error_set(RPL_EENV, "'%s' holds no %s template", dir, probe);
        snprintf(out, size, "%s", dir);
        return 0;
    }
    len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0) {
        char *slash;
        exe[len] = '\0';
        if ((slash = strrchr(exe, '/')) != NULL) {
            int n;
            *slash = '\0';
            n = snprintf(out, size, "%s/%s", exe, RPL_TEMPLATES_FROM_BINDIR);
            if (n > 0 && (size_t)n < size && holds(out, probe))
                return 0;
        }
    }
    snprintf(out, size, "%s", RPL_SOURCE_TEMPLATES_DIR);
    if (holds(out, probe))
        return 0;
    return rpl_error_set(RPL_EENV,
                         "templates not found beside the program or in '%s'; use --templates "
                         "or ROCM_PERF_TEMPLATES",
                         RPL_SOURCE_TEMPLATES_DIR);
}
