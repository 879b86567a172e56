/*
 * Executable wrappers (tool_int.h).  When an executable is frozen its
 * kernels are final: each loaded code object (through the loader
 * extension) gives its agent and load range, each kernel symbol of that
 * agent its kernel_object, name and segment sizes.  The code object bytes
 * are copied only where a kernel the capture could pick lives, since
 * libraries load hundreds of megabytes of code the capture never needs.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpl/error.h"
#include "rpl/hsa.h"
#include "tool_int.h"

/* Largest code object copied (the readers in src/codeobj refuse more too). */
#define MAX_CODE_OBJECT ((uint64_t)RPL_CODEOBJ_MAX_FILE)

char *ch_demangle(const char *mangled)
{
    int status = -1;
    char *r;

    if (!ch_g.demangle || strncmp(mangled, "_Z", 2) != 0)
        return NULL;
    r = ch_g.demangle(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(r);
        return NULL;
    }
    return r;
}

typedef struct scan {
    hsa_executable_t exe;
    hsa_agent_t agent;
    uint64_t load_base, load_size;
    bool wanted; /* a kernel the pattern picks lives here */
    int rc;
} scan;

static char *symbol_name(hsa_executable_symbol_t sym)
{
    uint32_t len = 0;
    char *name;

    if (ch_g.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH,
                                                    &len) != HSA_STATUS_SUCCESS)
        return NULL;
    name = calloc(1, (size_t)len + 1);
    if (name && ch_g.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME,
                                                            name) != HSA_STATUS_SUCCESS) {
        free(name);
        name = NULL;
    }
    return name;
}

static uint32_t symbol_u32(hsa_executable_symbol_t sym, hsa_executable_symbol_info_t what)
{
    uint32_t v = 0;

    ch_g.core.hsa_executable_symbol_get_info_fn(sym, what, &v);
    return v;
}

static hsa_status_t add_kernel(hsa_executable_t exe, hsa_agent_t agent, hsa_executable_symbol_t sym,
                               void *data)
{
    scan *s = data;
    hsa_symbol_kind_t kind;
    ch_kernel k;

    memset(&k, 0, sizeof(k));
    if (ch_g.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) !=
            HSA_STATUS_SUCCESS ||
        kind != HSA_SYMBOL_KIND_KERNEL)
        return HSA_STATUS_SUCCESS;
    if (ch_g.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                                    &k.kernel_object) != HSA_STATUS_SUCCESS ||
        k.kernel_object < s->load_base || k.kernel_object - s->load_base >= s->load_size)
        return HSA_STATUS_SUCCESS; /* another loaded code object of this agent holds it */
    k.executable = exe.handle;
    k.agent = agent.handle;
    k.symbol = symbol_name(sym);
    if (!k.symbol || rpl_amd_kernel_name(&k.name, k.symbol)) {
        ch_kernel_release(&k);
        s->rc = rpl_error_oom();
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    k.demangled = ch_demangle(k.name);
    k.kernarg_size = symbol_u32(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
    k.kernarg_align = symbol_u32(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT);
    k.group_segment_size = symbol_u32(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE);
    k.private_segment_size =
        symbol_u32(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
    s->wanted |= ch_config_selects(&ch_g.cfg, k.name, k.demangled);
    s->rc = ch_kernels_add(&ch_g.kernels, &k);
    ch_kernel_release(&k);
    return s->rc ? HSA_STATUS_ERROR_OUT_OF_RESOURCES : HSA_STATUS_SUCCESS;
}

static int lco_u64(hsa_loaded_code_object_t lco, hsa_ven_amd_loader_loaded_code_object_info_t what,
                   uint64_t *v)
{
    *v = 0;
    return ch_g.loader.hsa_ven_amd_loader_loaded_code_object_get_info(lco, what, v) ==
                   HSA_STATUS_SUCCESS
               ? 0
               : -1;
}

/* The code object's bytes from a file the loader read: the whole file, or the URI's range. */
static unsigned char *copy_from_file(hsa_loaded_code_object_t lco, size_t *len)
{
    int fd = -1;
    struct stat st;
    uint64_t offset = 0, size = 0;
    uint32_t ulen = 0;
    char *uri = NULL;
    unsigned char *bytes = NULL;

    if (ch_g.loader.hsa_ven_amd_loader_loaded_code_object_get_info(
            lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE, &fd) !=
            HSA_STATUS_SUCCESS ||
        fd < 0 || fstat(fd, &st) != 0)
        return NULL;
    size = (uint64_t)st.st_size;
    if (ch_g.loader.hsa_ven_amd_loader_loaded_code_object_get_info(
            lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, &ulen) ==
            HSA_STATUS_SUCCESS &&
        (uri = calloc(1, (size_t)ulen + 1)) != NULL &&
        ch_g.loader.hsa_ven_amd_loader_loaded_code_object_get_info(
            lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, uri) == HSA_STATUS_SUCCESS)
        ch_uri_range(uri, &offset, &size);
    free(uri);
    if (size == 0 || size > MAX_CODE_OBJECT || offset > (uint64_t)st.st_size ||
        size > (uint64_t)st.st_size - offset || (bytes = malloc(size)) == NULL)
        return NULL;
    if (pread(fd, bytes, size, (off_t)offset) != (ssize_t)size) {
        free(bytes);
        return NULL;
    }
    *len = size;
    return bytes;
}

static unsigned char *copy_code_object(hsa_loaded_code_object_t lco, size_t *len)
{
    uint64_t type = 0, base = 0, size = 0;
    unsigned char *bytes;

    *len = 0;
    /* STORAGE_TYPE is a 32-bit enum: read it into a zeroed 64-bit slot. */
    if (lco_u64(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE, &type))
        return NULL;
    if ((uint32_t)type == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE)
        return copy_from_file(lco, len);
    if ((uint32_t)type != HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY ||
        lco_u64(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE,
                &base) ||
        lco_u64(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE,
                &size) ||
        base == 0 || size == 0 || size > MAX_CODE_OBJECT)
        return NULL;
    bytes = malloc(size);
    if (!bytes)
        return NULL;
    memcpy(bytes, (const void *)(uintptr_t)base, size);
    *len = size;
    return bytes;
}

static hsa_status_t add_code_object(hsa_executable_t exe, hsa_loaded_code_object_t lco, void *data)
{
    scan *s = data;
    unsigned char *bytes = NULL;
    size_t len = 0;
    hsa_status_t st;

    memset(&s->agent, 0, sizeof(s->agent));
    if (ch_g.loader.hsa_ven_amd_loader_loaded_code_object_get_info(
            lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT, &s->agent) !=
            HSA_STATUS_SUCCESS ||
        lco_u64(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, &s->load_base) ||
        lco_u64(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, &s->load_size))
        return HSA_STATUS_SUCCESS; /* a program code object, or one without a load range */
    s->wanted = false;
    st = ch_g.core.hsa_executable_iterate_agent_symbols_fn(exe, s->agent, add_kernel, s);
    if (s->rc)
        return st;
    if (s->wanted) {
        bytes = copy_code_object(lco, &len);
        if (!bytes)
            ch_say("could not copy a code object of executable 0x%llx; its kernels cannot be "
                   "captured",
                   (unsigned long long)exe.handle);
    }
    s->rc = ch_kernels_add_code(&ch_g.kernels, exe.handle, s->load_base, s->load_size, bytes, len);
    if (s->rc) {
        free(bytes);
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t executable_freeze(hsa_executable_t exe, const char *options)
{
    hsa_status_t st = ch_g.core.hsa_executable_freeze_fn(exe, options);
    scan s;

    if (st != HSA_STATUS_SUCCESS)
        return st;
    memset(&s, 0, sizeof(s));
    s.exe = exe;
    pthread_mutex_lock(&ch_g.lock);
    if (!ch_g.done) {
        ch_g.loader.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(exe, add_code_object,
                                                                              &s);
        if (s.rc) {
            ch_say("%s; not capturing", rpl_error_last()->message);
            ch_g.done = true;
        }
    }
    pthread_mutex_unlock(&ch_g.lock);
    return st;
}

static hsa_status_t executable_destroy(hsa_executable_t exe)
{
    pthread_mutex_lock(&ch_g.lock);
    ch_kernels_drop_executable(&ch_g.kernels, exe.handle);
    pthread_mutex_unlock(&ch_g.lock);
    return ch_g.core.hsa_executable_destroy_fn(exe);
}

void ch_hook_code(rpl_hsa_api_table *t)
{
    t->core_->hsa_executable_freeze_fn = executable_freeze;
    t->core_->hsa_executable_destroy_fn = executable_destroy;
}
