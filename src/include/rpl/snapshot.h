/*
 * Replay snapshots: one directory per captured kernel dispatch
 * (docs/schemas/snapshot.schema.json, docs/USER_GUIDE.md "Capture and replay").
 *
 *   SNAP/dispatch.json          what ran: backend, architecture, versions, kernel names,
 *                               launch geometry, kernarg layout, module globals, and the
 *                               size and SHA-256 of every other file of the snapshot
 *   SNAP/kernarg.bin            the kernarg segment (AMD, hidden arguments included) or the
 *                               packed CUDA parameter buffer
 *   SNAP/kernel.hsaco | kernel.cubin    the code object that holds the kernel
 *   SNAP/memory_regions.json    every captured device range (addresses as hex strings)
 *   SNAP/memory/region_<hex>.bin        its bytes before the dispatch
 *   SNAP/memory/post/region_<hex>.bin   its bytes after the dispatch
 *   SNAP/globals/<n>.bin, globals/post/<n>.bin   module globals (__device__/__constant__)
 *
 * A snapshot is written into a temporary sibling directory and renamed into
 * place when complete, so a crashed capture leaves no half snapshot under
 * the final name.  Region bytes are streamed in chunks (never held whole).
 * Every size, offset and string read back is checked; a bad snapshot fails
 * with RPL_EINPUT and one line naming the file and the problem.
 */
#ifndef RPL_SNAPSHOT_H
#define RPL_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RPL_SNAPSHOT_SCHEMA_VERSION "1.0"

/* Largest JSON file of a snapshot read back, and most regions/params/globals. */
#define RPL_SNAPSHOT_MAX_JSON    (64u << 20)
#define RPL_SNAPSHOT_MAX_REGIONS 65536u
#define RPL_SNAPSHOT_MAX_PARAMS  4096u

typedef enum rpl_snap_backend {
    RPL_SNAP_CUDA = 1, /* "cuda": captured by librpl_cupti.so */
    RPL_SNAP_HSA = 2   /* "hsa": captured by librpl_hsa.so */
} rpl_snap_backend;

/* Element type of a region, for the comparison of replayed and captured bytes. */
typedef enum rpl_dtype {
    RPL_DTYPE_BYTES = 0, /* unknown: compared bitwise */
    RPL_DTYPE_I8,
    RPL_DTYPE_U8,
    RPL_DTYPE_I16,
    RPL_DTYPE_U16,
    RPL_DTYPE_I32,
    RPL_DTYPE_U32,
    RPL_DTYPE_I64,
    RPL_DTYPE_U64,
    RPL_DTYPE_F16,
    RPL_DTYPE_BF16,
    RPL_DTYPE_F32,
    RPL_DTYPE_F64
} rpl_dtype;

/* "bytes", "i8", ..., "f64"; the inverse returns -1 for an unknown name. */
const char *rpl_dtype_name(rpl_dtype t);
int rpl_dtype_parse(const char *name);
size_t rpl_dtype_size(rpl_dtype t); /* 1 for RPL_DTYPE_BYTES */

/*
 * The parameter types of a kernel from its demangled name ("k(float const*,
 * int)" -> "float const*", "int"); "k()" and "k(void)" have none.  RPL_EINPUT
 * when the name has no parameter list.  Free with rpl_strv_free.
 */
int rpl_param_types(char ***out, size_t *n, const char *demangled);
void rpl_strv_free(char **v, size_t n);

/*
 * Whether a parameter type is a pointer, and the element type it points to
 * (qualifiers ignored; vector types such as float4 or HIP_vector_type<float,
 * 4u> give their element; a pointer to pointers gives u64; anything else
 * RPL_DTYPE_BYTES).
 */
void rpl_param_type_classify(const char *type, bool *pointer, rpl_dtype *pointee);

typedef struct rpl_snap_file {
    char *path; /* relative to the snapshot directory */
    uint64_t size;
    char sha256[65]; /* lowercase hex */
} rpl_snap_file;

typedef struct rpl_snap_region {
    uint64_t base; /* device virtual address */
    uint64_t size;
    char *kind;      /* "device", "pool", "vmm", "host", "managed", "kernarg", "code" */
    char *file;      /* contents before the dispatch ("memory/region_<hex>.bin") */
    char *post_file; /* contents after it, or NULL when not captured */
    rpl_dtype dtype; /* from a pointer parameter into it, else RPL_DTYPE_BYTES */
    bool written;    /* post differs from pre (known at capture) */
} rpl_snap_region;

/*
 * One explicit kernel parameter: where it sits in kernarg.bin.  AMD hidden
 * arguments (value_kind hidden_*) are part of kernarg.bin but not listed.
 */
typedef struct rpl_snap_param {
    uint32_t offset, size;
    char *type;        /* the parameter's C type from the demangled name, or NULL */
    bool pointer;      /* a pointer (its value is a device address) */
    rpl_dtype pointee; /* element type of a pointer parameter, RPL_DTYPE_BYTES if unknown */
} rpl_snap_param;

/* A module global (__device__/__constant__ variable). */
typedef struct rpl_snap_global {
    char *name;
    uint64_t address, size;
    char *file, *post_file; /* post_file may be NULL */
} rpl_snap_global;

typedef struct rpl_snapshot {
    char *dir; /* where it was read from (or is written to) */
    rpl_snap_backend backend;
    char *arch;            /* "sm_90", "gfx942" */
    char *target;          /* AMD ISA name ("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), or arch */
    char *device_name;     /* "NVIDIA H200" */
    char *driver_version;  /* "580.159.04" / KFD or HSA runtime version */
    char *runtime_version; /* CUDA "13.0" / HSA "1.14" */
    char *tool_version;    /* rocm-perf version that captured it */
    char *mangled_name, *demangled_name;
    char *code_object_file;   /* "kernel.cubin" / "kernel.hsaco" */
    char *code_object_symbol; /* name to look up in it: mangled (CUDA) or "<mangled>.kd" */

    /* Launch geometry.  grid counts blocks on CUDA and work-items on HSA (AQL semantics). */
    uint32_t grid[3], block[3];
    uint32_t dynamic_shared_bytes;  /* CUDA sharedMemBytes; HSA packet group_segment_size */
    uint32_t static_shared_bytes;   /* from the code object, for the record */
    uint32_t private_segment_bytes; /* HSA packet private_segment_size; CUDA local bytes */
    uint32_t cluster[3];            /* CUDA thread-block cluster, {0,0,0} when none */
    uint64_t kernel_object;         /* HSA kernel descriptor address (0 on CUDA) */
    uint16_t setup_dims;            /* HSA packet dimensions (1-3); CUDA: 3; 0 when writing: 3 */

    uint64_t kernarg_size;
    uint32_t kernarg_align; /* power of two; 0 when writing: 8 */
    char *kernarg_file;     /* "kernarg.bin" */
    rpl_snap_param *params;
    size_t nparams;

    uint64_t dispatch_index; /* the N-th matching dispatch, 0-based */
    int64_t capture_pid;
    bool aslr_disabled; /* the application ran with ADDR_NO_RANDOMIZE */
    char *captured_at;  /* UTC, ISO 8601 */

    rpl_snap_region *regions; /* ascending base, non-overlapping */
    size_t nregions;
    rpl_snap_global *globals;
    size_t nglobals;
    rpl_snap_file *files; /* every file but dispatch.json, with its digest */
    size_t nfiles;
} rpl_snapshot;

/*
 * Read a snapshot directory: dispatch.json and memory_regions.json are
 * parsed and validated (schema version, types, ranges, sorted and
 * non-overlapping regions, every named file listed with its size, sizes on
 * disk equal to the recorded ones, no path escaping the directory).
 * Contents are not hashed here: see rpl_snapshot_verify.
 */
int rpl_snapshot_open(rpl_snapshot **out, const char *dir);
void rpl_snapshot_free(rpl_snapshot *snap);

/*
 * Stream every listed file through SHA-256 and compare with its recorded
 * digest; RPL_EINPUT naming the first file that differs.
 */
int rpl_snapshot_verify(const rpl_snapshot *snap);

/* Open a region's (or a global's) file for streaming reads; `post` picks the image. */
int rpl_snapshot_region_open(FILE **out, const rpl_snapshot *snap, size_t region, bool post);
int rpl_snapshot_global_open(FILE **out, const rpl_snapshot *snap, size_t global, bool post);

/* The index of the region that contains [addr, addr+len), or -1. */
long rpl_snapshot_find_region(const rpl_snapshot *snap, uint64_t addr, uint64_t len);

/*
 * Writing.  rpl_snapshot_writer_begin creates a temporary sibling of `dir`
 * (which must not exist yet; missing parents are created); files are added
 * whole or streamed (open, write..., close) under the names the metadata
 * will give them (rpl_snapshot_region_path, rpl_snapshot_global_path).
 * commit writes memory_regions.json and dispatch.json from `meta`, whose
 * files[] must be empty and is filled from what was written, reads the
 * result back with rpl_snapshot_open's checks, and renames the directory
 * into place.  abort, or a failed commit, removes the temporary directory.
 * Both commit and abort free the writer.
 */
typedef struct rpl_snapshot_writer rpl_snapshot_writer;

int rpl_snapshot_writer_begin(rpl_snapshot_writer **out, const char *dir);
int rpl_snapshot_writer_add(rpl_snapshot_writer *w, const char *path, const void *data, size_t len);
int rpl_snapshot_writer_open(rpl_snapshot_writer *w, const char *path);
int rpl_snapshot_writer_write(rpl_snapshot_writer *w, const void *data, size_t len);
int rpl_snapshot_writer_close(rpl_snapshot_writer *w);
int rpl_snapshot_writer_commit(rpl_snapshot_writer *w, rpl_snapshot *meta);
void rpl_snapshot_writer_abort(rpl_snapshot_writer *w);

/* "memory/region_<lowercase hex base>.bin" (and "memory/post/..."), free(). */
int rpl_snapshot_region_path(char **out, uint64_t base, bool post);
/* "globals/<index>.bin" (and "globals/post/..."), free(). */
int rpl_snapshot_global_path(char **out, size_t index, bool post);

/*
 * Merge address ranges into sorted, non-overlapping spans aligned to
 * `granularity` (a power of two; 1 keeps exact bounds): overlapping or
 * touching ranges after alignment become one span.  The capture merges
 * overlapping allocations this way; the CUDA replay reserves spans on the
 * 2 MiB VMM granularity.  *out is free()d by the caller.
 */
typedef struct rpl_range {
    uint64_t base, size;
} rpl_range;

int rpl_ranges_merge(rpl_range **out, size_t *nout, const rpl_range *in, size_t n,
                     uint64_t granularity);

/*
 * Comparison of replayed bytes with a captured image, chunk by chunk.
 * Integer and unknown types compare bitwise; floating-point elements pass
 * when |got - want| <= atol + rtol * |want|, or both are NaN (a NaN where a
 * number was captured fails, and the reverse).  Tolerances default per type
 * (rpl_compare_tolerance_default) and are stated in every report.
 */
typedef struct rpl_tolerance {
    double rtol, atol;
} rpl_tolerance;

rpl_tolerance rpl_compare_tolerance_default(rpl_dtype t);

typedef struct rpl_compare_state {
    rpl_dtype dtype;
    rpl_tolerance tol;
    uint64_t elements, mismatches;
    bool have_first;
    uint64_t first_addr;                      /* device address of the first differing element */
    double first_got, first_want;             /* its values (integers converted) */
    uint64_t first_got_bits, first_want_bits; /* its raw bits (little endian) */
    double max_abs_err, max_rel_err;          /* over floating-point elements */
} rpl_compare_state;

void rpl_compare_init(rpl_compare_state *st, rpl_dtype dtype, rpl_tolerance tol);
/*
 * Compare `len` bytes that start at device address `addr`; `len` and the
 * chunk boundaries must be multiples of the element size, except the
 * region's last chunk, whose tail is compared bitwise.
 */
void rpl_compare_chunk(rpl_compare_state *st, uint64_t addr, const void *got, const void *want,
                       size_t len);

#endif
