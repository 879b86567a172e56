/* The capture's environment: directory, kernel pattern, dispatch index (capture_pure.h). */
#include <stdlib.h>
#include <string.h>

#include "capture_pure.h"
#include "rpl/error.h"
#include "rpl/number.h"

static int parse_index(uint64_t *out, const char *s)
{
    *out = 0;
    if (!s || !*s)
        return 0;
    if (!rpl_parse_u64(s, out))
        return rpl_error_set(RPL_EUSAGE, "ROCM_PERF_CAPTURE_DISPATCH '%s' is no dispatch index", s);
    return 0;
}

int ch_config_init(ch_config *c, const char *dir, const char *kernel, const char *dispatch)
{
    int rc;

    memset(c, 0, sizeof(*c));
    if (!dir || !*dir)
        return rpl_error_set(RPL_EUSAGE, "ROCM_PERF_CAPTURE_DIR is not set");
    rc = parse_index(&c->index, dispatch);
    if (rc)
        return rc;
    if (kernel && !*kernel)
        kernel = NULL;
    /* An explicit pattern may name a runtime helper; the default skips them. */
    rc = rpl_kernel_filter_init(&c->filter, kernel, NULL, kernel != NULL);
    if (rc) {
        rpl_error_prefix("ROCM_PERF_CAPTURE_KERNEL");
        return rc;
    }
    c->dir = strdup(dir);
    if (!c->dir) {
        ch_config_release(c);
        return rpl_error_oom();
    }
    return 0;
}

void ch_config_release(ch_config *c)
{
    rpl_kernel_filter_release(&c->filter);
    free(c->dir);
    memset(c, 0, sizeof(*c));
}

bool ch_config_selects(const ch_config *c, const char *name, const char *demangled)
{
    return rpl_kernel_filter_selects(&c->filter, name, demangled ? demangled : "");
}

bool ch_config_count(ch_config *c, uint64_t *ordinal)
{
    *ordinal = c->seen++;
    return *ordinal == c->index;
}
