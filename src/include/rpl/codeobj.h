/*
 * Static kernel resources read from compiled GPU code.
 *
 * Accepted inputs (detected by content, not by file name):
 *  - AMDGPU ELF code objects (v3-v6): the NT_AMDGPU_METADATA note (msgpack)
 *  - clang offload bundles ("__CLANG_OFFLOAD_BUNDLE__") and compressed
 *    bundles ("CCOB" v1/v2, zstd; needs libzstd at build time), as files
 *    (.hipfb, .co) or inside host ELF files (.hip_fatbin section)
 *  - NVIDIA cubins (ELF, EM_CUDA): .nv.info attributes, .nv.shared.<kernel>
 *  - NVIDIA fatbins (magic 0xBA55ED50) as files or inside host ELF files
 *    (.nv_fatbin section); uncompressed and zstd-compressed cubin entries
 *
 * Every offset and size read from the input is checked; a malformed file
 * fails with RPL_EINPUT and a one-line message naming the file.
 */
#ifndef RPL_CODEOBJ_H
#define RPL_CODEOBJ_H

#include <stddef.h>
#include <stdint.h>

#include "rpl/arch.h"

/* Largest input read (bytes) and largest decompressed payload. */
#define RPL_CODEOBJ_MAX_FILE    (1u << 30)
#define RPL_CODEOBJ_MAX_INFLATE (1u << 30)

/* A count the input does not record. */
#define RPL_CODEOBJ_UNKNOWN (-1)

typedef struct rpl_kernarg {
    char *name;          /* or NULL */
    char *type_name;     /* or NULL */
    char *value_kind;    /* "global_buffer", "by_value", "hidden_..." (AMD), or NULL */
    char *address_space; /* "global", ... or NULL */
    uint32_t offset;
    uint32_t size;
} rpl_kernarg;

typedef struct rpl_kernel_info {
    rpl_vendor vendor;
    char *name;   /* kernel name as in the metadata (mangled) */
    char *symbol; /* AMD: descriptor symbol ("k.kd"); NVIDIA: function symbol */
    char *arch;   /* "gfx90a", "sm_90" */
    char *target; /* AMD: "amdgcn-amd-amdhsa--gfx90a:xnack-"; NVIDIA: "sm_90" */
    char *origin; /* where it was found: "file[:section][#bundle entry]" */

    int32_t vgpr_count; /* AMD .vgpr_count (unified arch+acc on gfx90a+); NVIDIA registers/thread */
    int32_t agpr_count; /* AMD .agpr_count; 0 where the arch has none; NVIDIA unknown */
    int32_t arch_vgpr_count;  /* AMD arch VGPRs: exact without AGPRs, else aligned to 4 */
    int32_t sgpr_count;       /* AMD .sgpr_count; NVIDIA unknown */
    int32_t vgpr_spill_count; /* AMD; NVIDIA unknown */
    int32_t sgpr_spill_count;
    uint32_t group_segment_fixed_size;   /* LDS / static shared memory per block, bytes */
    uint32_t private_segment_fixed_size; /* scratch / local stack frame per lane, bytes */
    uint32_t wavefront_size;
    uint32_t max_flat_workgroup_size; /* NVIDIA: launch bound, 0 when none */
    uint32_t kernarg_segment_size;
    uint32_t kernarg_segment_align;
    int32_t uses_dynamic_stack;   /* 0/1, or unknown */
    int32_t num_barriers;         /* NVIDIA block barriers; unknown on AMD */
    uint32_t code_object_version; /* AMD 3..6; NVIDIA 0 */
    uint32_t llvm_major;          /* clang major version of the producer, 0 when unknown */
    size_t n_args;
    rpl_kernarg *args;
} rpl_kernel_info;

/*
 * Called with the bytes of every device code image as it is read: each
 * AMDGPU code object and cubin (decompressed), and each PTX entry of a
 * fatbin (and each LZ4-compressed cubin) as stored.  `kind` is "amdgpu",
 * "cubin", "ptx" or "cubin-lz4".
 */
typedef void (*rpl_codeobj_image_fn)(void *ctx, const char *kind, const void *data, size_t len);

typedef struct rpl_codeobj_set {
    rpl_kernel_info *kernels;
    size_t count;
    size_t cap;
    size_t n_images; /* device code objects / cubins read */
    char **globals;  /* NVIDIA cubins: the device variables (defined OBJECT symbols), by name */
    size_t n_globals, cap_globals;
    char **warnings; /* things skipped, one line each */
    size_t n_warnings, cap_warnings;
    rpl_codeobj_image_fn on_image; /* or NULL */
    void *image_ctx;
} rpl_codeobj_set;

/* An empty set (calloc'ed; free with rpl_codeobj_set_free). */
int rpl_codeobj_set_new(rpl_codeobj_set **out);
void rpl_codeobj_set_free(rpl_codeobj_set *set);

/*
 * Read every kernel in the file at `path` and append it to `set`.
 * RPL_ENOTFOUND/RPL_EIO for an unreadable file, RPL_EINPUT for a malformed
 * one or one that holds no GPU code.  On failure `set` keeps what it had.
 */
int rpl_codeobj_read_file(rpl_codeobj_set *set, const char *path);

/* The same for bytes in memory; `name` names them in messages and origins. */
int rpl_codeobj_read_buffer(rpl_codeobj_set *set, const void *data, size_t len, const char *name);

#endif
