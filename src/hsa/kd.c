/* Kernel descriptors (LLVM AMDGPUUsage, code object v3+) and their ".kd" symbols (rpl/hsa.h). */
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "rpl/error.h"
#include "rpl/hsa.h"

/* Byte offsets in the 64-byte descriptor. */
enum {
    KD_GROUP_FIXED = 0,
    KD_PRIVATE_FIXED = 4,
    KD_KERNARG_SIZE = 8,
    KD_ENTRY_OFFSET = 16,
    KD_RSRC3 = 44,
    KD_RSRC1 = 48,
    KD_RSRC2 = 52,
    KD_PROPERTIES = 56,
    KD_KERNARG_PRELOAD = 58
};

/* kernel_code_properties bits. */
#define KCP_ENABLE_SGPR_QUEUE_PTR (1u << 2)
#define KCP_WAVEFRONT_SIZE32      (1u << 10)
#define KCP_USES_DYNAMIC_STACK    (1u << 11)

static const char kd_suffix[] = ".kd";
static const char kd_clone_suffix[] = " [clone .kd]";

int rpl_amd_kd_parse(rpl_amd_kd *out, const void *bytes, size_t len)
{
    const unsigned char *p = bytes;

    if (len < RPL_AMD_KD_BYTES)
        return rpl_error_set(RPL_EINPUT, "kernel descriptor: %zu bytes, need %d", len,
                             RPL_AMD_KD_BYTES);
    memset(out, 0, sizeof(*out));
    out->group_segment_fixed_size = le32(p + KD_GROUP_FIXED);
    out->private_segment_fixed_size = le32(p + KD_PRIVATE_FIXED);
    out->kernarg_size = le32(p + KD_KERNARG_SIZE);
    out->kernel_code_entry_byte_offset = (int64_t)le64(p + KD_ENTRY_OFFSET);
    out->compute_pgm_rsrc3 = le32(p + KD_RSRC3);
    out->compute_pgm_rsrc1 = le32(p + KD_RSRC1);
    out->compute_pgm_rsrc2 = le32(p + KD_RSRC2);
    out->kernel_code_properties = le16(p + KD_PROPERTIES);
    out->kernarg_preload = le16(p + KD_KERNARG_PRELOAD);
    out->uses_queue_ptr = (out->kernel_code_properties & KCP_ENABLE_SGPR_QUEUE_PTR) != 0;
    out->wavefront_size32 = (out->kernel_code_properties & KCP_WAVEFRONT_SIZE32) != 0;
    out->uses_dynamic_stack = (out->kernel_code_properties & KCP_USES_DYNAMIC_STACK) != 0;
    return 0;
}

static bool ends_with(const char *s, size_t len, const char *suffix, size_t slen)
{
    return len > slen && memcmp(s + len - slen, suffix, slen) == 0;
}

bool rpl_amd_is_kd_symbol(const char *symbol)
{
    size_t len = strlen(symbol);

    return ends_with(symbol, len, kd_suffix, sizeof(kd_suffix) - 1) ||
           ends_with(symbol, len, kd_clone_suffix, sizeof(kd_clone_suffix) - 1);
}

static int dup_n(char **out, const char *s, size_t n)
{
    char *r = malloc(n + 1);

    if (!r)
        return rpl_error_oom();
    memcpy(r, s, n);
    r[n] = '\0';
    *out = r;
    return 0;
}

int rpl_amd_kd_symbol(char **out, const char *kernel)
{
    size_t n = strlen(kernel);
    char *r;

    if (n > SIZE_MAX - sizeof(kd_suffix))
        return rpl_error_oom();
    r = malloc(n + sizeof(kd_suffix));
    if (!r)
        return rpl_error_oom();
    memcpy(r, kernel, n);
    memcpy(r + n, kd_suffix, sizeof(kd_suffix));
    *out = r;
    return 0;
}

int rpl_amd_kernel_name(char **out, const char *symbol)
{
    size_t len = strlen(symbol);

    if (ends_with(symbol, len, kd_clone_suffix, sizeof(kd_clone_suffix) - 1))
        len -= sizeof(kd_clone_suffix) - 1;
    else if (ends_with(symbol, len, kd_suffix, sizeof(kd_suffix) - 1))
        len -= sizeof(kd_suffix) - 1;
    return dup_n(out, symbol, len);
}
