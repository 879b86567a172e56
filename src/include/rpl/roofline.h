/*
 * Roofline: FLOPs by precision and memory bytes from per-dispatch counters,
 * with the per-architecture formulas (rocprofiler-compute's roofline for AMD,
 * Nsight Compute's metrics for NVIDIA; see roofline_counts.c), the ceilings of a product (or an
 * empirical ceilings file, docs/schemas/ceilings.schema.json), and where each kernel sits below its
 * roof.  Its reports are declared in rpl/analysis_report.h.
 */
#ifndef RPL_ROOFLINE_H
#define RPL_ROOFLINE_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "rpl/arch.h"
#include "rpl/dag.h"
#include "rpl/kernel_filter.h"
#include "rpl/strbuf.h"
#include "rpl/trace.h"

#define RPL_ROOFLINE_SCHEMA_VERSION "1.0"
#define RPL_ROOFLINE_JSON_NAME      "roofline.json"
#define RPL_ANALYSIS_JSON_NAME      "analysis.json"

typedef enum rpl_prec {
    RPL_PREC_FP16 = 0,
    RPL_PREC_BF16,
    RPL_PREC_FP32,
    RPL_PREC_FP64,
    RPL_PREC_FP8,
    RPL_PREC_COUNT
} rpl_prec;

/* "fp16", "bf16", ... */
const char *rpl_prec_name(rpl_prec p);

/* Which counter formulas apply. */
typedef enum rpl_roof_family {
    RPL_ROOF_FAMILY_NONE = 0, /* no known formulas for this architecture */
    RPL_ROOF_FAMILY_GFX90A,   /* MI200 (gfx90a, gfx908): TCC_EA_* */
    RPL_ROOF_FAMILY_GFX942,   /* MI300 (gfx940/941/942): TCC_EA0_* + TCC_BUBBLE */
    RPL_ROOF_FAMILY_GFX950,   /* MI350: TCC_EA0_RDREQ_{32B,64B,128B} */
    RPL_ROOF_FAMILY_GFX1030,  /* RDNA2: GL2C_*, no typed FLOP counters */
    RPL_ROOF_FAMILY_NVIDIA    /* ncu / CUPTI metric names */
} rpl_roof_family;

rpl_roof_family rpl_roof_family_of(const char *arch_name);

/* Counter lookup: true and *value when the dispatch has the counter. */
typedef bool (*rpl_counter_get_fn)(void *ctx, const char *name, double *value);

#define RPL_ROOF_NOTE_MAX 8

/* What the counters of one dispatch (or their sum over a kernel) give. */
typedef struct rpl_roof_counts {
    double valu_flops[RPL_PREC_COUNT];    /* VALU (AMD) / SIMT (NVIDIA) FLOPs */
    double matrix_flops[RPL_PREC_COUNT];  /* MFMA (AMD) / tensor cores (NVIDIA) FLOPs */
    double flops;                         /* their sum */
    double hbm_read, hbm_write;           /* bytes between L2 and memory */
    double l2_bytes, l1_bytes, lds_bytes; /* < 0 when the counters are absent */
    bool has_flops, has_bytes;
    bool flops_are_proxy;                 /* gfx1030: wave_size x VALU instructions, no precision */
    const char *missing;                  /* first missing counter, or NULL */
    unsigned clamps;                      /* terms clamped to physically possible values */
    const char *notes[RPL_ROOF_NOTE_MAX]; /* what was clamped (static strings) */
    unsigned nnotes;
} rpl_roof_counts;

/*
 * FLOPs and bytes of one dispatch from its counters.  Never fails: absent
 * counters leave has_flops/has_bytes false and name the first in `missing`.
 */
void rpl_roof_counts_compute(rpl_roof_counts *out, rpl_roof_family family, unsigned wave_size,
                             rpl_counter_get_fn get, void *ctx);

/* Add b into a (a kernel's total over its dispatches). */
void rpl_roof_counts_add(rpl_roof_counts *a, const rpl_roof_counts *b);

/* Ceilings, GFLOP/s and GB/s; 0 where unknown. */
typedef struct rpl_roof_ceilings {
    double hbm_gbps, l2_gbps, l1_gbps, lds_gbps;
    double valu_gflops[RPL_PREC_COUNT];
    double matrix_gflops[RPL_PREC_COUNT];
    char device[64];
    char source[160]; /* "product table: MI300X" or "ceilings file: PATH" */
} rpl_roof_ceilings;

/* From the product table (TFLOP/s and TB/s converted). */
void rpl_roof_ceilings_from_product(rpl_roof_ceilings *out, const rpl_product *product);

/* Empirical ceilings JSON (docs/schemas/ceilings.schema.json); RPL_EINPUT when malformed. */
int rpl_roof_ceilings_load(rpl_roof_ceilings *out, const char *path);

/* Where a kernel sits under the roof. */
typedef struct rpl_roof_point {
    bool valid;         /* false: see reason */
    const char *reason; /* why there is no roofline (static or interned string) */
    double time_ns;     /* summed durations of the dispatches with counters */
    double flops, bytes;
    double ai;               /* FLOP/byte; < 0 when bytes == 0 */
    double gflops, gbps;     /* achieved */
    double peak_gflops;      /* the compute roof for this precision mix */
    double peak_gbps;        /* HBM roof */
    double ridge;            /* peak_gflops / peak_gbps, FLOP/byte; < 0 when unknown */
    bool compute_bound;      /* AI at or above the ridge */
    double roof_fraction;    /* time at the roof / measured time, at most 1 */
    bool exceeds_roof;       /* the counters claim more than the ceilings allow */
    double bw_fraction;      /* gbps / peak_gbps */
    double compute_fraction; /* gflops / peak_gflops (0 when no FLOPs) */
} rpl_roof_point;

/* Place counts measured over time_ns under the ceilings. */
void rpl_roof_point_compute(rpl_roof_point *out, const rpl_roof_counts *c, double time_ns,
                            const rpl_roof_ceilings *ceil);

/* A trace's counter names sorted, for lookups by name. */
typedef struct rpl_roof_names {
    struct rpl_roof_name {
        const char *name;
        uint32_t index; /* into trace->counter_names */
    } * items;
    uint32_t count;
} rpl_roof_names;

int rpl_roof_names_init(rpl_roof_names *out, const rpl_trace *trace);
void rpl_roof_names_release(rpl_roof_names *names);

/* The counter lookup over a trace dispatch (ctx is a rpl_roof_dispatch_ctx). */
typedef struct rpl_roof_dispatch_ctx {
    const rpl_trace *trace;
    const rpl_dispatch *dispatch;
} rpl_roof_dispatch_ctx;
bool rpl_roof_trace_counter(void *ctx, const char *name, double *value);

/* The same with names looked up in a rpl_roof_names (ctx is a rpl_roof_indexed_ctx). */
typedef struct rpl_roof_indexed_ctx {
    rpl_roof_dispatch_ctx base;
    const rpl_roof_names *names;
} rpl_roof_indexed_ctx;
bool rpl_roof_trace_counter_indexed(void *ctx, const char *name, double *value);

/* The formulas and ceilings that apply to a trace agent. */
typedef struct rpl_roof_target {
    rpl_roof_family family;
    unsigned wave_size;
    const rpl_arch *arch;       /* may be NULL */
    const rpl_product *product; /* may be NULL */
    rpl_roof_ceilings ceilings;
    bool has_ceilings;
} rpl_roof_target;

/* user: ceilings from a file, or NULL for the product table. */
void rpl_roof_target_of(rpl_roof_target *out, const rpl_agent *agent,
                        const rpl_roof_ceilings *user);

/*
 * Fill the DAG symbols' headroom (1 - roof fraction over their dispatches)
 * from the trace counters with product ceilings; symbols without counters
 * keep 1.0 and headroom_known false.  Called by rpl_dag_build.
 */
int rpl_roofline_dag_headroom(rpl_dag *dag, const rpl_trace *trace);

typedef struct rpl_roofline_opts {
    const char *att_dir;       /* --att DIR, or NULL */
    const char *ceilings_path; /* --ceilings FILE, or NULL */
    const rpl_dag *dag; /* the trace's DAG built with the same filter, or NULL to build one */
} rpl_roofline_opts;

#endif
