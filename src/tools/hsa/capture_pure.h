/*
 * The parts of librpl_hsa.so that make no HSA call (the unit tests link
 * them alone as rpl_hsa_pure):
 *
 *   config.c    the environment: where, which kernel, which dispatch
 *   regions.c   the device memory the application holds (allocations and
 *               vmem mappings) and the spans a snapshot copies
 *   kernels.c   kernel symbols by kernel_object, and the code objects that
 *               hold them
 *   params.c    parameter types from a demangled name, the kernarg layout
 *               of a snapshot
 */
#ifndef RPL_HSA_CAPTURE_PURE_H
#define RPL_HSA_CAPTURE_PURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/codeobj.h"
#include "rpl/kernel_filter.h"
#include "rpl/snapshot.h"

/* Prefix of every line the capture prints inside the application. */
#define CH_PREFIX "rocm-perf capture: "

/* ---- configuration (config.c) ---- */

typedef struct ch_config {
    char *dir;                /* the snapshot directory to create */
    rpl_kernel_filter filter; /* ROCM_PERF_CAPTURE_KERNEL (filter.kernel_regex); without
                                 one, any kernel that is no runtime helper */
    uint64_t index;           /* the 0-based matching dispatch to capture */
    uint64_t seen;            /* matching dispatches so far */
} ch_config;

/*
 * From the values of ROCM_PERF_CAPTURE_DIR (required), _KERNEL (NULL or ""
 * for any kernel) and _DISPATCH (NULL or "" for 0).  RPL_EUSAGE for a
 * missing directory, a bad pattern or a bad index.
 */
int ch_config_init(ch_config *c, const char *dir, const char *kernel, const char *dispatch);
void ch_config_release(ch_config *c);
/* Whether the kernel (mangled name without ".kd", demangled or NULL) is one the pattern picks. */
bool ch_config_selects(const ch_config *c, const char *name, const char *demangled);
/*
 * Count a dispatch of a selected kernel: true for the index-th (0-based)
 * and only for it.  *ordinal gets the dispatch's number among the matches.
 */
bool ch_config_count(ch_config *c, uint64_t *ordinal);

/* ---- device memory (regions.c) ---- */

typedef enum ch_kind {
    CH_POOL = 0, /* hsa_amd_memory_pool_allocate from a GPU agent's pool */
    CH_HOST,     /* the same from a CPU agent's pool (system memory) */
    CH_KERNARG,  /* the same from a kernarg pool */
    CH_DEVICE,   /* hsa_memory_allocate (regions API) */
    CH_VMM       /* a range mapped with hsa_amd_vmem_map */
} ch_kind;

/* The snapshot's region kind: "pool", "host", "kernarg", "device", "vmm". */
const char *ch_kind_name(ch_kind k);

typedef struct ch_alloc {
    uint64_t base, size;
    ch_kind kind;
} ch_alloc;

typedef struct ch_mapping {
    uint64_t va, size, handle;
    bool accessible; /* hsa_amd_vmem_set_access gave some agent access */
} ch_mapping;

typedef struct ch_regions {
    ch_alloc *allocs; /* ascending base, never overlapping */
    size_t nallocs, cap_allocs;
    ch_mapping *maps; /* ascending va, never overlapping */
    size_t nmaps, cap_maps;
} ch_regions;

/*
 * Record an allocation.  The runtime has just handed out the range, so
 * whatever the table held over it is stale (a free it did not see) and is
 * cut away first.  Size 0 is ignored.
 */
int ch_regions_alloc(ch_regions *r, uint64_t base, uint64_t size, ch_kind kind);
/* The free of the allocation at `base`; false when unknown. */
bool ch_regions_free(ch_regions *r, uint64_t base);
/* hsa_amd_vmem_map: a new mapping (stale ones over it are dropped), not yet accessible. */
int ch_regions_map(ch_regions *r, uint64_t va, uint64_t size, uint64_t handle);
/* hsa_amd_vmem_unmap / hsa_amd_vmem_address_free: drop mappings inside [va, va+size). */
size_t ch_regions_unmap(ch_regions *r, uint64_t va, uint64_t size);
/* hsa_amd_vmem_set_access over [va, va+size): mark the mappings there. */
void ch_regions_set_access(ch_regions *r, uint64_t va, uint64_t size, bool accessible);
/* The allocation or accessible mapping that holds addr, as a ch_alloc; false when none. */
bool ch_regions_find(const ch_regions *r, uint64_t addr, ch_alloc *out);
void ch_regions_release(ch_regions *r);

/*
 * What a snapshot copies: every allocation and accessible mapping, merged
 * into ascending, non-overlapping spans (rpl_ranges_merge, exact bounds).
 * A span takes the kind of the lowest range in it.  *out is free()d.
 */
int ch_regions_spans(const ch_regions *r, ch_alloc **out, size_t *n);

/* ---- kernels and code objects (kernels.c) ---- */

typedef struct ch_code_object {
    uint64_t executable; /* hsa_executable_t handle */
    uint64_t load_base, load_size;
    unsigned char *bytes; /* a copy of the ELF, or NULL when not kept */
    size_t len;
} ch_code_object;

typedef struct ch_kernel {
    uint64_t kernel_object;
    uint64_t executable, agent; /* handles */
    char *symbol;               /* "<mangled>.kd" */
    char *name;                 /* mangled, without ".kd" */
    char *demangled;            /* or NULL */
    uint32_t kernarg_size, kernarg_align;
    uint32_t group_segment_size, private_segment_size; /* static, from the symbol */
} ch_kernel;

typedef struct ch_kernels {
    ch_kernel *items; /* ascending kernel_object */
    size_t count, cap;
    ch_code_object *code; /* in load order */
    size_t ncode, cap_code;
} ch_kernels;

/* Record a kernel (k's strings are taken over); one at the same kernel_object is replaced. */
int ch_kernels_add(ch_kernels *t, ch_kernel *k);
const ch_kernel *ch_kernels_find(const ch_kernels *t, uint64_t kernel_object);
/* Record a loaded code object (bytes taken over, may be NULL). */
int ch_kernels_add_code(ch_kernels *t, uint64_t executable, uint64_t load_base, uint64_t load_size,
                        unsigned char *bytes, size_t len);
/* The loaded code object of `executable` whose load range holds `address`, or NULL. */
const ch_code_object *ch_kernels_code_at(const ch_kernels *t, uint64_t executable,
                                         uint64_t address);
/* hsa_executable_destroy: forget its kernels and code objects. */
void ch_kernels_drop_executable(ch_kernels *t, uint64_t executable);
void ch_kernel_release(ch_kernel *k);
/*
 * The "#offset=N&size=M" fragment of a loaded code object's URI
 * ("file:///lib.so#offset=8192&size=4096", "memory://123#offset=0x7f..&size=..."):
 * true when both are there (decimal or 0x hex); *offset and *size are
 * untouched otherwise.
 */
bool ch_uri_range(const char *uri, uint64_t *offset, uint64_t *size);
void ch_kernels_release(ch_kernels *t);

/* ---- parameters (params.c) ---- */

/* Parameter types come from rpl_param_types and rpl_param_type_classify
 * (rpl/snapshot.h). */

/*
 * The snapshot's parameter list of a kernel: the explicit arguments of its
 * code object metadata (hidden_* arguments left out), typed from the
 * demangled name when it lists as many parameters.  *out is an array of
 * *n entries (free with ch_params_free).
 */
int ch_params_build(rpl_snap_param **out, size_t *n, const rpl_kernel_info *info,
                    const char *demangled);
void ch_params_free(rpl_snap_param *p, size_t n);

/*
 * The kernarg segment size of `name` (mangled, without ".kd") from the code
 * object metadata, for kernels whose symbol reports 0 (Tensile and
 * assembly kernels).  RPL_ENOTFOUND when the code object does not describe
 * the kernel.  *info (may be NULL) points into `set`.
 */
int ch_kernarg_from_metadata(uint32_t *size, uint32_t *align, const rpl_kernel_info **info,
                             const rpl_codeobj_set *set, const char *name);

#endif
