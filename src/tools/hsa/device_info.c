/* What a snapshot records about the agent, the runtime and the driver (tool_int.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/hsa.h"
#include "rpl/strbuf.h"
#include "tool_int.h"

static hsa_status_t first_isa(hsa_isa_t isa, void *data)
{
    *(hsa_isa_t *)data = isa;
    return HSA_STATUS_INFO_BREAK;
}

/* The agent's ISA name, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-". */
static char *isa_name(hsa_agent_t agent)
{
    hsa_isa_t isa = {0};
    uint32_t len = 0;
    char *name;

    ch_g.core.hsa_agent_iterate_isas_fn(agent, first_isa, &isa);
    if (!isa.handle || ch_g.core.hsa_isa_get_info_alt_fn(isa, HSA_ISA_INFO_NAME_LENGTH, &len) !=
                           HSA_STATUS_SUCCESS)
        return NULL;
    name = calloc(1, (size_t)len + 1);
    if (name &&
        ch_g.core.hsa_isa_get_info_alt_fn(isa, HSA_ISA_INFO_NAME, name) != HSA_STATUS_SUCCESS) {
        free(name);
        name = NULL;
    }
    return name;
}

static char *product_name(hsa_agent_t agent)
{
    char name[64] = {0};

    if (ch_g.core.hsa_agent_get_info_fn(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME,
                                        name) != HSA_STATUS_SUCCESS ||
        !name[0])
        ch_g.core.hsa_agent_get_info_fn(agent, HSA_AGENT_INFO_NAME, name);
    name[sizeof(name) - 1] = '\0';
    return strdup(name[0] ? name : "AMD GPU");
}

/* "1.1 (ROCr <build id>)": the HSA version the runtime implements, and its build. */
static char *runtime_version(void)
{
    uint16_t major = 0, minor = 0;
    const char *build = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;

    ch_g.core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
    ch_g.core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_VERSION_MINOR, &minor);
    if (ch_g.core.hsa_system_get_info_fn(HSA_AMD_SYSTEM_INFO_BUILD_VERSION, &build) !=
        HSA_STATUS_SUCCESS)
        build = NULL;
    if (build && build[0] ? rpl_strbuf_printf(&sb, "%u.%u (ROCr %.100s)", major, minor, build)
                          : rpl_strbuf_printf(&sb, "%u.%u", major, minor)) {
        rpl_strbuf_release(&sb);
        return NULL;
    }
    return rpl_strbuf_detach(&sb);
}

/* The amdgpu module's version (DKMS builds have one), else the kernel it came with. */
static char *driver_version(void)
{
    char *text = NULL;
    size_t len = 0;
    struct utsname u;
    rpl_strbuf sb = RPL_STRBUF_INIT;

    if (rpl_file_read_all("/sys/module/amdgpu/version", 256, &text, &len) == 0 && len > 0) {
        text[strcspn(text, "\n")] = '\0';
        if (text[0])
            return text;
    }
    free(text);
    rpl_error_clear();
    if (uname(&u) != 0 || rpl_strbuf_printf(&sb, "amdgpu of Linux %s", u.release)) {
        rpl_strbuf_release(&sb);
        return strdup("amdgpu");
    }
    return rpl_strbuf_detach(&sb);
}

int ch_device_describe(rpl_snapshot *m, hsa_agent_t agent)
{
    rpl_amd_isa isa;

    m->target = isa_name(agent);
    if (!m->target)
        return rpl_error_set(RPL_ERROR, "the agent reports no ISA name");
    if (rpl_amd_isa_parse(&isa, m->target))
        return RPL_EINPUT;
    m->arch = strdup(isa.processor);
    m->device_name = product_name(agent);
    m->runtime_version = runtime_version();
    m->driver_version = driver_version();
    if (!m->arch || !m->device_name || !m->runtime_version || !m->driver_version)
        return rpl_error_oom();
    return 0;
}
