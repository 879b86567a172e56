/*
 * AMD HSA facts that need no runtime: the AQL packets a queue carries, the
 * 64-byte kernel descriptor a kernel_object points at, the ".kd" names of
 * kernel symbols and the ISA names of agents and code objects.  Shared by
 * the capture library (src/tools/hsa) and the HSA replay backend
 * (src/replay); nothing here calls the HSA runtime or includes its headers,
 * so all of it is unit-tested on machines without an AMD GPU.
 *
 * Sources: the HSA Platform System Architecture / Programmer's Reference
 * (packet formats, as in hsa.h's hsa_kernel_dispatch_packet_t and
 * hsa_barrier_and_packet_t) and LLVM's AMDGPUUsage "Kernel Descriptor"
 * (code object v3 and later).
 */
#ifndef RPL_HSA_H
#define RPL_HSA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- AQL packets ---- */

#define RPL_AQL_PACKET_BYTES 64

/* Packet types (header bits 0-7). */
enum rpl_aql_type {
    RPL_AQL_VENDOR_SPECIFIC = 0,
    RPL_AQL_INVALID = 1,
    RPL_AQL_KERNEL_DISPATCH = 2,
    RPL_AQL_BARRIER_AND = 3,
    RPL_AQL_AGENT_DISPATCH = 4,
    RPL_AQL_BARRIER_OR = 5
};

/* Fence scopes of the acquire (bits 9-10) and release (bits 11-12) fences. */
enum rpl_aql_scope { RPL_AQL_SCOPE_NONE = 0, RPL_AQL_SCOPE_AGENT = 1, RPL_AQL_SCOPE_SYSTEM = 2 };

typedef struct rpl_aql_header {
    unsigned type;    /* enum rpl_aql_type */
    bool barrier;     /* bit 8: wait for every earlier packet of the queue */
    unsigned acquire; /* enum rpl_aql_scope */
    unsigned release;
} rpl_aql_header;

uint16_t rpl_aql_header_encode(rpl_aql_header h);
rpl_aql_header rpl_aql_header_decode(uint16_t bits);
/* The type of the packet at `packet` (its first byte). */
unsigned rpl_aql_packet_type(const void *packet);

/* A KERNEL_DISPATCH packet, field by field. */
typedef struct rpl_aql_dispatch {
    rpl_aql_header header;
    uint16_t dims;                 /* setup bits 0-1: 1, 2 or 3 */
    uint16_t workgroup[3];         /* work-items per workgroup */
    uint32_t grid[3];              /* work-items (not workgroups) */
    uint32_t private_segment_size; /* scratch bytes per work-item */
    uint32_t group_segment_size;   /* LDS bytes per workgroup: static plus dynamic */
    uint64_t kernel_object;        /* address of the kernel descriptor */
    uint64_t kernarg_address;
    uint64_t completion_signal; /* hsa_signal_t handle, 0 for none */
} rpl_aql_dispatch;

/*
 * Decode `len` (>= 64) bytes.  RPL_EINPUT when the packet is no kernel
 * dispatch, a fence scope is the reserved value 3, dims is 0, or a
 * workgroup or grid size of a used dimension is 0.
 */
int rpl_aql_dispatch_decode(rpl_aql_dispatch *out, const void *packet, size_t len);

/*
 * Write the 64 bytes of a dispatch packet (reserved fields zero).
 * RPL_EUSAGE for a header that is no kernel dispatch or holds a scope > 2,
 * or dims outside 1-3.
 */
int rpl_aql_dispatch_encode(void *packet, const rpl_aql_dispatch *d);

/* A BARRIER_AND packet waiting on up to five signals (0 handles are ignored by the packet
 * processor). */
int rpl_aql_barrier_and_encode(void *packet, rpl_aql_header h, const uint64_t *deps, size_t ndeps,
                               uint64_t completion_signal);

/*
 * Publish an encoded packet into a queue slot the way a producer must:
 * bytes 4-63 first, then the first 32 bits (header and setup) with one
 * atomic release store, so the packet processor never sees a valid header
 * in front of a half-written body.
 */
void rpl_aql_publish(void *slot, const void *packet);

/* ---- kernel descriptors ---- */

#define RPL_AMD_KD_BYTES 64

typedef struct rpl_amd_kd {
    uint32_t group_segment_fixed_size;   /* static LDS bytes */
    uint32_t private_segment_fixed_size; /* static scratch bytes per work-item */
    uint32_t kernarg_size;               /* kernarg segment bytes (hidden arguments included) */
    int64_t kernel_code_entry_byte_offset;
    uint32_t compute_pgm_rsrc1, compute_pgm_rsrc2, compute_pgm_rsrc3;
    uint16_t kernel_code_properties;
    uint16_t kernarg_preload; /* gfx940+: kernarg words preloaded into SGPRs */
    /* From kernel_code_properties: */
    bool uses_queue_ptr;     /* reads the queue it runs on (replay gives it another one) */
    bool wavefront_size32;   /* wave32 (RDNA) */
    bool uses_dynamic_stack; /* scratch need not known at compile time */
} rpl_amd_kd;

/* Decode the descriptor at `bytes` (len >= 64); RPL_EINPUT when shorter. */
int rpl_amd_kd_parse(rpl_amd_kd *out, const void *bytes, size_t len);

/* ---- names ---- */

/*
 * Code object v3+ kernels are found by their descriptor symbol "<name>.kd"
 * (ROCr's loader takes kernarg and segment sizes from it).  The HSA symbol
 * name is that symbol; demangled it reads "f(int*) [clone .kd]".
 */
bool rpl_amd_is_kd_symbol(const char *symbol);
/* "<kernel>.kd" (free()). */
int rpl_amd_kd_symbol(char **out, const char *kernel);
/* The kernel name: the symbol without ".kd" / " [clone .kd]" (free()). */
int rpl_amd_kernel_name(char **out, const char *symbol);

/* ---- ISA names ---- */

/* Target feature setting in an ISA name. */
enum rpl_amd_feature { RPL_AMD_FEATURE_ANY = 0, RPL_AMD_FEATURE_ON, RPL_AMD_FEATURE_OFF };

typedef struct rpl_amd_isa {
    char processor[32]; /* "gfx942" */
    enum rpl_amd_feature sramecc, xnack;
} rpl_amd_isa;

/*
 * Parse "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" (an agent's ISA or a
 * code object's target) or the bare "gfx942:xnack-".  Unknown features are
 * ignored; RPL_EINPUT for a name without a gfx processor.
 */
int rpl_amd_isa_parse(rpl_amd_isa *out, const char *name);

/*
 * Whether code built for (or captured on) `want` runs on an agent whose ISA
 * is `have`: the same processor, and every feature that both name set to
 * on or off set alike ("any" matches both).
 */
bool rpl_amd_isa_compatible(const rpl_amd_isa *want, const rpl_amd_isa *have);

#endif
