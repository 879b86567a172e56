/*
 * Capture mode of librpl_cupti.so (ROCM_PERF_CAPTURE_DIR set): the N-th
 * launch of a kernel that matches ROCM_PERF_CAPTURE_KERNEL becomes a replay
 * snapshot (rpl/snapshot.h).  The pieces below the first line of dashes are
 * free of CUDA calls (the unit tests link them alone as rpl_capture_pure);
 * the ones after it talk to the driver.
 *
 *   capture_config.c   the environment: where, which kernel, which dispatch
 *   capture_allocs.c   the device allocations the application holds
 *   capture_types.c    demangling and parameter types -> region dtypes
 *   capture_cubin.c    functions and module globals of a cubin (ELF symtab)
 *   ---------------------------------------------------------------------
 *   capture.c          CUPTI callbacks: modules, allocations, launches
 *   capture_launch.c   a launch's geometry, attributes and parameter buffer
 *   capture_memory.c   region and global images through a pinned bounce buffer
 */
#ifndef RPL_CUPTI_CAPTURE_H
#define RPL_CUPTI_CAPTURE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/snapshot.h"

/* Prefix of every message the capture prints inside the application. */
#define CC_PREFIX "rocm-perf capture: "

/* ---- configuration (capture_config.c) ---- */

typedef struct cc_config {
    char *dir;      /* the snapshot directory to create, absolute */
    bool have_re;   /* a kernel pattern was given; else every kernel matches */
    regex_t re;     /* POSIX ERE, unanchored */
    char *pattern;  /* its text, for messages */
    uint64_t index; /* the 0-based matching dispatch to capture */
} cc_config;

/*
 * From the values of ROCM_PERF_CAPTURE_DIR, _KERNEL (NULL or "" for every
 * kernel) and _DISPATCH (NULL or "" for 0).  A relative dir is taken from
 * `cwd`.  RPL_EUSAGE for a bad pattern or index.
 */
int cc_config_init(cc_config *c, const char *dir, const char *kernel, const char *dispatch,
                   const char *cwd);
void cc_config_release(cc_config *c);
/* True when the pattern matches the demangled name (when known) or the mangled one. */
bool cc_config_matches(const cc_config *c, const char *mangled, const char *demangled);

/* ---- allocations (capture_allocs.c) ---- */

typedef enum cc_kind {
    CC_DEVICE = 0, /* cuMemAlloc, cudaMalloc, pitch allocations */
    CC_POOL,       /* stream-ordered: cuMemAllocAsync, cudaMallocFromPoolAsync, ... */
    CC_VMM,        /* a range mapped with cuMemMap */
    CC_MANAGED,    /* cuMemAllocManaged / cudaMallocManaged */
    CC_HOST        /* pinned or registered host memory: tracked, never captured */
} cc_kind;

/* The snapshot's region kind: "device", "pool", "vmm", "managed", "host". */
const char *cc_kind_name(cc_kind k);

typedef struct cc_alloc {
    uint64_t base, size;
    cc_kind kind;
} cc_alloc;

/* Ascending by base and never overlapping (see cc_allocs_add). */
typedef struct cc_allocs {
    cc_alloc *items;
    size_t count, cap;
} cc_allocs;

/*
 * Record [base, base+size).  The driver has just handed out that range, so
 * whatever the table held there is stale (a free it did not see) and is cut
 * away first.  VMM mappings that touch are one region: PyTorch's expandable
 * segments map a reservation piece by piece.  Size 0 is ignored.
 */
int cc_allocs_add(cc_allocs *a, uint64_t base, uint64_t size, cc_kind kind);
/* A free of the allocation that starts at base (no-op when unknown); true when found. */
bool cc_allocs_free(cc_allocs *a, uint64_t base);
/* Drop [base, base+size) from every entry it touches (cuMemUnmap, cuMemAddressFree). */
int cc_allocs_remove_range(cc_allocs *a, uint64_t base, uint64_t size);
/* The entry that contains ptr, or NULL. */
const cc_alloc *cc_allocs_find(const cc_allocs *a, uint64_t ptr);
void cc_allocs_release(cc_allocs *a);

/* ---- names (capture_types.c) ---- */

/* The demangled name (free()), or NULL when `mangled` is not a C++ name. */
char *cc_demangle(const char *mangled);

/* Parameter types and their element types: rpl_param_types and
 * rpl_param_type_classify (rpl/snapshot.h). */

/* ---- cubins (capture_cubin.c) ---- */

/* Called for each function and each module global of a cubin; nonzero stops. */
typedef int (*cc_symbol_fn)(void *ud, const char *name, uint64_t size, bool function);

/*
 * Walk a cubin's symbol table: STT_FUNC symbols (kernels and device
 * functions) and the STT_OBJECT symbols of the .nv.global* and
 * .nv.constant<bank> sections other than bank 0 (the parameter bank), that
 * is __device__ and __constant__ variables.  RPL_EINPUT for bytes that are
 * not a cubin; otherwise what the callback returned.
 */
int cc_cubin_symbols(const void *data, size_t len, cc_symbol_fn fn, void *ud);
/* True when the cubin defines the function `mangled`. */
bool cc_cubin_has_function(const void *data, size_t len, const char *mangled);

#endif
