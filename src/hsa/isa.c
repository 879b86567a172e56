/* ISA names of agents and code objects, and whether code fits an agent (rpl/hsa.h). */
#include <string.h>

#include "rpl/error.h"
#include "rpl/hsa.h"

/* Apply one ":feature+" / ":feature-" item. */
static void set_feature(rpl_amd_isa *isa, const char *item, size_t len)
{
    enum rpl_amd_feature v;

    if (len < 2 || (item[len - 1] != '+' && item[len - 1] != '-'))
        return;
    v = item[len - 1] == '+' ? RPL_AMD_FEATURE_ON : RPL_AMD_FEATURE_OFF;
    len--;
    if (len == 7 && memcmp(item, "sramecc", 7) == 0)
        isa->sramecc = v;
    else if (len == 5 && memcmp(item, "xnack", 5) == 0)
        isa->xnack = v;
}

int rpl_amd_isa_parse(rpl_amd_isa *out, const char *name)
{
    const char *p, *end;
    size_t n;

    memset(out, 0, sizeof(*out));
    /* The processor follows the last "--" of a full triple, or starts the name. */
    p = strstr(name, "--");
    while (p && strstr(p + 2, "--"))
        p = strstr(p + 2, "--");
    p = p ? p + 2 : name;
    end = strchr(p, ':');
    n = end ? (size_t)(end - p) : strlen(p);
    if (n < 4 || n >= sizeof(out->processor) || strncmp(p, "gfx", 3) != 0)
        return rpl_error_set(RPL_EINPUT, "ISA name '%s' names no gfx processor", name);
    memcpy(out->processor, p, n);
    out->processor[n] = '\0';
    while (end) {
        const char *item = end + 1;

        end = strchr(item, ':');
        set_feature(out, item, end ? (size_t)(end - item) : strlen(item));
    }
    return 0;
}

static bool feature_fits(enum rpl_amd_feature want, enum rpl_amd_feature have)
{
    return want == RPL_AMD_FEATURE_ANY || have == RPL_AMD_FEATURE_ANY || want == have;
}

bool rpl_amd_isa_compatible(const rpl_amd_isa *want, const rpl_amd_isa *have)
{
    return strcmp(want->processor, have->processor) == 0 &&
           feature_fits(want->sramecc, have->sramecc) && feature_fits(want->xnack, have->xnack);
}
