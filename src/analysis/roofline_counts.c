/*
 * FLOPs and bytes from hardware counters, per architecture family.
 * Formulas: rocprofiler-compute's roofline (ROCm/rocm-systems@1b1610f,
 * projects/rocprofiler-compute) for AMD FLOPs (add/mul/trans 1, FMA 2, 64 lanes
 * per VALU instruction, 512 per MFMA MOP), HBM bytes, L2/L1/LDS bytes and the
 * gfx1030 FLOP proxy; Nsight Compute's metrics for NVIDIA (FMA counted as 2,
 * tensor ops as given).
 *
 * Counters of one formula may come from different replays (passes) and then
 * disagree: a difference that would be negative is clamped at 0 and noted.
 */
#include <string.h>

#include "rpl/roofline.h"

static const char *const prec_names[RPL_PREC_COUNT] = {"fp16", "bf16", "fp32", "fp64", "fp8"};

const char *rpl_prec_name(rpl_prec p)
{
    return (unsigned)p < RPL_PREC_COUNT ? prec_names[p] : "?";
}

rpl_roof_family rpl_roof_family_of(const char *arch)
{
    if (!arch)
        return RPL_ROOF_FAMILY_NONE;
    if (strncmp(arch, "sm_", 3) == 0)
        return RPL_ROOF_FAMILY_NVIDIA;
    if (strncmp(arch, "gfx90a", 6) == 0 || strncmp(arch, "gfx908", 6) == 0)
        return RPL_ROOF_FAMILY_GFX90A;
    if (strncmp(arch, "gfx940", 6) == 0 || strncmp(arch, "gfx941", 6) == 0 ||
        strncmp(arch, "gfx942", 6) == 0)
        return RPL_ROOF_FAMILY_GFX942;
    if (strncmp(arch, "gfx950", 6) == 0)
        return RPL_ROOF_FAMILY_GFX950;
    if (strncmp(arch, "gfx103", 6) == 0)
        return RPL_ROOF_FAMILY_GFX1030;
    return RPL_ROOF_FAMILY_NONE;
}

typedef struct reader {
    rpl_roof_counts *out;
    rpl_counter_get_fn get;
    void *ctx;
    const char *missing; /* first absent required counter of the current formula */
} reader;

static void note(rpl_roof_counts *c, const char *text)
{
    c->clamps++;
    for (unsigned i = 0; i < c->nnotes; i++)
        if (c->notes[i] == text)
            return;
    if (c->nnotes < RPL_ROOF_NOTE_MAX)
        c->notes[c->nnotes++] = text;
}

/* A required counter: 0 and remembered as missing when absent; negatives clamped. */
static double need(reader *r, const char *name)
{
    double v;

    if (!r->get(r->ctx, name, &v)) {
        if (!r->missing)
            r->missing = name;
        return 0;
    }
    if (v < 0) {
        note(r->out, "a negative counter value was clamped to 0");
        return 0;
    }
    return v;
}

/* An optional counter: 0 when absent. */
static double opt(reader *r, const char *name, bool *present)
{
    double v;
    bool ok = r->get(r->ctx, name, &v);

    if (present)
        *present = ok;
    if (!ok)
        return 0;
    if (v < 0) {
        note(r->out, "a negative counter value was clamped to 0");
        return 0;
    }
    return v;
}

static double diff(rpl_roof_counts *c, double a, double b, const char *why)
{
    if (a >= b)
        return a - b;
    note(c, why);
    return 0;
}

/* Start a formula; returns true when all its required counters were there. */
static void begin(reader *r)
{
    r->missing = NULL;
}

static bool end(reader *r)
{
    if (r->missing && !r->out->missing)
        r->out->missing = r->missing;
    return r->missing == NULL;
}

static void amd_flops(reader *r, bool fp8)
{
    static const char *const valu[][4] = {
        {"SQ_INSTS_VALU_ADD_F16", "SQ_INSTS_VALU_MUL_F16", "SQ_INSTS_VALU_FMA_F16",
         "SQ_INSTS_VALU_TRANS_F16"},
        {"SQ_INSTS_VALU_ADD_F32", "SQ_INSTS_VALU_MUL_F32", "SQ_INSTS_VALU_FMA_F32",
         "SQ_INSTS_VALU_TRANS_F32"},
        {"SQ_INSTS_VALU_ADD_F64", "SQ_INSTS_VALU_MUL_F64", "SQ_INSTS_VALU_FMA_F64",
         "SQ_INSTS_VALU_TRANS_F64"},
    };
    static const rpl_prec valu_prec[] = {RPL_PREC_FP16, RPL_PREC_FP32, RPL_PREC_FP64};
    static const char *const mops[] = {
        "SQ_INSTS_VALU_MFMA_MOPS_F16", "SQ_INSTS_VALU_MFMA_MOPS_BF16",
        "SQ_INSTS_VALU_MFMA_MOPS_F32", "SQ_INSTS_VALU_MFMA_MOPS_F64"};
    static const rpl_prec mops_prec[] = {RPL_PREC_FP16, RPL_PREC_BF16, RPL_PREC_FP32,
                                         RPL_PREC_FP64};
    rpl_roof_counts *c = r->out;

    begin(r);
    for (int i = 0; i < 3; i++)
        c->valu_flops[valu_prec[i]] = 64.0 * (need(r, valu[i][0]) + need(r, valu[i][1]) +
                                              2.0 * need(r, valu[i][2]) + need(r, valu[i][3]));
    for (int i = 0; i < 4; i++)
        c->matrix_flops[mops_prec[i]] = 512.0 * need(r, mops[i]);
    /* FP8 (and FP6/FP4 on gfx950, counted with it) when collected; I8 is not a FLOP. */
    if (fp8)
        c->matrix_flops[RPL_PREC_FP8] = 512.0 * (opt(r, "SQ_INSTS_VALU_MFMA_MOPS_F8", NULL) +
                                                 opt(r, "SQ_INSTS_VALU_MFMA_MOPS_F6F4", NULL));
    c->has_flops = end(r);
}

static void gfx90a_bytes(reader *r)
{
    rpl_roof_counts *c = r->out;
    double rd, rd32, wr, wr64;

    begin(r);
    rd = need(r, "TCC_EA_RDREQ_sum");
    rd32 = need(r, "TCC_EA_RDREQ_32B_sum");
    wr = need(r, "TCC_EA_WRREQ_sum");
    wr64 = need(r, "TCC_EA_WRREQ_64B_sum");
    c->hbm_read = 32.0 * rd32 + 64.0 * diff(c, rd, rd32,
                                            "TCC_EA_RDREQ_32B_sum exceeded "
                                            "TCC_EA_RDREQ_sum; 64-byte reads "
                                            "clamped to 0");
    c->hbm_write = 64.0 * wr64 + 32.0 * diff(c, wr, wr64,
                                             "TCC_EA_WRREQ_64B_sum exceeded "
                                             "TCC_EA_WRREQ_sum; 32-byte writes "
                                             "clamped to 0");
    c->has_bytes = end(r);
}

static void ea0_write(reader *r)
{
    rpl_roof_counts *c = r->out;
    double wr = need(r, "TCC_EA0_WRREQ_sum"), wr64 = need(r, "TCC_EA0_WRREQ_64B_sum");

    c->hbm_write = 64.0 * wr64 + 32.0 * diff(c, wr, wr64,
                                             "TCC_EA0_WRREQ_64B_sum exceeded "
                                             "TCC_EA0_WRREQ_sum; 32-byte writes "
                                             "clamped to 0");
}

static void gfx942_bytes(reader *r)
{
    rpl_roof_counts *c = r->out;
    double rd, rd32, bubble;

    begin(r);
    rd = need(r, "TCC_EA0_RDREQ_sum");
    rd32 = need(r, "TCC_EA0_RDREQ_32B_sum");
    bubble = need(r, "TCC_BUBBLE_sum");
    c->hbm_read = 128.0 * bubble + 32.0 * rd32 +
                  64.0 * diff(c, rd, bubble + rd32,
                              "TCC_BUBBLE_sum + TCC_EA0_RDREQ_32B_sum exceeded "
                              "TCC_EA0_RDREQ_sum (counters of different passes); 64-byte "
                              "reads clamped to 0");
    ea0_write(r);
    c->has_bytes = end(r);
}

/*
 * gfx950: TCC_BUBBLE reads 0 (counters.md §1.2), so the 128-byte reads come
 * from TCC_EA0_RDREQ_128B.  Without it (older collections) the non-32-byte
 * reads are taken as 128-byte, the L2 line size, as the older SDK did.
 */
static void gfx950_bytes(reader *r)
{
    rpl_roof_counts *c = r->out;
    bool has128, has64, hasall;
    double rd128, rd64, rd32, rd;

    begin(r);
    rd32 = need(r, "TCC_EA0_RDREQ_32B_sum");
    rd128 = opt(r, "TCC_EA0_RDREQ_128B_sum", &has128);
    rd64 = opt(r, "TCC_EA0_RDREQ_64B_sum", &has64);
    rd = opt(r, "TCC_EA0_RDREQ_sum", &hasall);
    if (has128 && has64) {
        c->hbm_read = 128.0 * rd128 + 64.0 * rd64 + 32.0 * rd32;
    } else if (has128 && hasall) {
        c->hbm_read = 128.0 * rd128 + 32.0 * rd32 +
                      64.0 * diff(c, rd, rd128 + rd32,
                                  "TCC_EA0_RDREQ_128B_sum + TCC_EA0_RDREQ_32B_sum exceeded "
                                  "TCC_EA0_RDREQ_sum; 64-byte reads clamped to 0");
    } else if (hasall) {
        note(c, "TCC_EA0_RDREQ_128B_sum absent: non-32-byte reads taken as 128-byte");
        c->hbm_read = 32.0 * rd32 + 128.0 * diff(c, rd, rd32,
                                                 "TCC_EA0_RDREQ_32B_sum exceeded "
                                                 "TCC_EA0_RDREQ_sum; 128-byte reads clamped to 0");
    } else if (!r->missing) {
        r->missing = "TCC_EA0_RDREQ_128B_sum";
    }
    ea0_write(r);
    c->has_bytes = end(r);
}

static void gfx1030(reader *r, unsigned wave_size)
{
    rpl_roof_counts *c = r->out;
    double valu, mc, wr64;
    bool ok;

    begin(r);
    valu = opt(r, "SQ_INSTS_VALU", &ok);
    if (!ok)
        valu = need(r, "SQ_INSTS_VALU_sum");
    c->valu_flops[RPL_PREC_FP32] = (double)wave_size * valu;
    c->flops_are_proxy = true;
    c->has_flops = end(r);

    begin(r);
    c->hbm_read =
        32.0 * need(r, "GL2C_EA_RDREQ_32B_sum") + 64.0 * need(r, "GL2C_EA_RDREQ_64B_sum") +
        96.0 * need(r, "GL2C_EA_RDREQ_96B_sum") + 128.0 * need(r, "GL2C_EA_RDREQ_128B_sum");
    mc = need(r, "GL2C_MC_WRREQ_sum");
    wr64 = need(r, "GL2C_EA_WRREQ_64B_sum");
    c->hbm_write = 64.0 * wr64 + 32.0 * diff(c, mc, wr64,
                                             "GL2C_EA_WRREQ_64B_sum exceeded GL2C_MC_WRREQ_sum; "
                                             "32-byte writes clamped to 0");
    c->has_bytes = end(r);
}

/* L2, vL1D and LDS bytes (counters.md §1.3); gfx94x/950 L2 lines are 128 bytes. */
static void amd_levels(reader *r, unsigned l2_read_bytes)
{
    rpl_roof_counts *c = r->out;
    double l2r, l2w, idx, conflict;

    begin(r);
    l2r = need(r, "TCP_TCC_READ_REQ_sum");
    l2w = need(r, "TCP_TCC_WRITE_REQ_sum");
    if (!r->missing)
        c->l2_bytes =
            l2_read_bytes * l2r + 64.0 * (l2w + opt(r, "TCP_TCC_ATOMIC_WITH_RET_REQ_sum", NULL) +
                                          opt(r, "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", NULL));
    begin(r);
    c->l1_bytes = 64.0 * need(r, "TCP_TOTAL_CACHE_ACCESSES_sum");
    if (r->missing)
        c->l1_bytes = -1;
    begin(r);
    idx = need(r, "SQ_LDS_IDX_ACTIVE");
    conflict = need(r, "SQ_LDS_BANK_CONFLICT");
    if (!r->missing)
        c->lds_bytes = 4.0 * 32.0 *
                       diff(c, idx, conflict,
                            "SQ_LDS_BANK_CONFLICT exceeded SQ_LDS_IDX_ACTIVE; "
                            "LDS bytes clamped to 0");
    r->missing = NULL;
}

static void nvidia(reader *r)
{
    static const char *const simt[3][3] = {
        {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
         "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
         "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"},
        {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
         "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
         "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"},
        {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
         "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
         "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"},
    };
    static const rpl_prec simt_prec[] = {RPL_PREC_FP16, RPL_PREC_FP32, RPL_PREC_FP64};
    static const struct {
        const char *name;
        rpl_prec prec;
    } tensor[] = {
        {"sm__ops_path_tensor_src_fp16.sum", RPL_PREC_FP16},
        {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", RPL_PREC_BF16},
        {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", RPL_PREC_FP32},
        {"sm__ops_path_tensor_src_fp64.sum", RPL_PREC_FP64},
        {"sm__ops_path_tensor_src_fp8.sum", RPL_PREC_FP8},
    };
    rpl_roof_counts *c = r->out;
    double l2, l1;
    bool ok;

    begin(r);
    for (int i = 0; i < 3; i++)
        c->valu_flops[simt_prec[i]] =
            need(r, simt[i][0]) + need(r, simt[i][1]) + 2.0 * need(r, simt[i][2]);
    /* Tensor metrics already count multiply and add (counters.md §5.2). */
    for (size_t i = 0; i < sizeof(tensor) / sizeof(tensor[0]); i++)
        c->matrix_flops[tensor[i].prec] += opt(r, tensor[i].name, NULL);
    c->has_flops = end(r);
    begin(r);
    c->hbm_read = need(r, "dram__bytes_read.sum");
    c->hbm_write = need(r, "dram__bytes_write.sum");
    c->has_bytes = end(r);
    l2 = opt(r, "lts__t_bytes.sum", &ok);
    c->l2_bytes = ok ? l2 : -1;
    l1 = opt(r, "l1tex__t_bytes.sum", &ok);
    c->l1_bytes = ok ? l1 : -1;
}

void rpl_roof_counts_compute(rpl_roof_counts *out, rpl_roof_family family, unsigned wave_size,
                             rpl_counter_get_fn get, void *ctx)
{
    reader r = {out, get, ctx, NULL};

    memset(out, 0, sizeof(*out));
    out->l2_bytes = out->l1_bytes = out->lds_bytes = -1;
    switch (family) {
    case RPL_ROOF_FAMILY_GFX90A:
        amd_flops(&r, false);
        gfx90a_bytes(&r);
        amd_levels(&r, 64);
        break;
    case RPL_ROOF_FAMILY_GFX942:
        amd_flops(&r, true);
        gfx942_bytes(&r);
        amd_levels(&r, 128);
        break;
    case RPL_ROOF_FAMILY_GFX950:
        amd_flops(&r, true);
        gfx950_bytes(&r);
        amd_levels(&r, 128);
        break;
    case RPL_ROOF_FAMILY_GFX1030:
        gfx1030(&r, wave_size ? wave_size : 32);
        break;
    case RPL_ROOF_FAMILY_NVIDIA:
        nvidia(&r);
        break;
    case RPL_ROOF_FAMILY_NONE:
        out->missing = "(no counter formulas for this architecture)";
        break;
    }
    for (int p = 0; p < RPL_PREC_COUNT; p++)
        out->flops += out->valu_flops[p] + out->matrix_flops[p];
}

static double add_level(double a, double b)
{
    return a < 0 || b < 0 ? -1 : a + b;
}

void rpl_roof_counts_add(rpl_roof_counts *a, const rpl_roof_counts *b)
{
    for (int p = 0; p < RPL_PREC_COUNT; p++) {
        a->valu_flops[p] += b->valu_flops[p];
        a->matrix_flops[p] += b->matrix_flops[p];
    }
    a->flops += b->flops;
    a->hbm_read += b->hbm_read;
    a->hbm_write += b->hbm_write;
    a->l2_bytes = add_level(a->l2_bytes, b->l2_bytes);
    a->l1_bytes = add_level(a->l1_bytes, b->l1_bytes);
    a->lds_bytes = add_level(a->lds_bytes, b->lds_bytes);
    a->flops_are_proxy = a->flops_are_proxy || b->flops_are_proxy;
    for (unsigned i = 0; i < b->nnotes; i++)
        note(a, b->notes[i]);
    a->clamps += b->clamps - b->nnotes;
}
