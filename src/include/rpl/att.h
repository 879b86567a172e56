/*
 * ATT (thread trace) features from rocprofv3's decoded output folders
 * (rocprofiler-sdk's att-tool, ROCm/rocm-systems@1b1610f, projects/rocprofiler-sdk):
 * ui_output_agent_<h>_dispatch_<d>/code.json holds one row per ISA instruction with its hit count,
 * latency, stall and idle cycles summed over the traced waves.  From them: the instruction mix,
 * stall and idle fractions, IPC and the mean latency of memory instructions.  Missing or malformed
 * folders give no features and a warning, never an error.
 */
#ifndef RPL_ATT_H
#define RPL_ATT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rpl_isa_class {
    RPL_ISA_VALU = 0,
    RPL_ISA_SALU,
    RPL_ISA_VMEM,
    RPL_ISA_SMEM,
    RPL_ISA_LDS,
    RPL_ISA_MFMA,
    RPL_ISA_BRANCH,
    RPL_ISA_WAITCNT, /* s_waitcnt and barriers: where memory latency shows */
    RPL_ISA_OTHER,
    RPL_ISA_CLASSES
} rpl_isa_class;

/* Class of one instruction's text ("v_fma_f32 v1, v2, v3, v4"). */
rpl_isa_class rpl_isa_classify(const char *isa);
/* True for instructions that change the exec mask (v_cmpx_*, s_*_saveexec_*). */
bool rpl_isa_sets_exec(const char *isa);
/* "valu", "salu", ... */
const char *rpl_isa_class_name(rpl_isa_class c);

#define RPL_ATT_HOT 5 /* instructions kept per kernel: those of the most latency cycles */

/* One instruction of code.json with its counts (summed when dispatches are merged). */
typedef struct rpl_att_hot {
    char isa[64];    /* its text, cut */
    char source[96]; /* "file:line" of its source, or "" */
    double vaddr;    /* its address in the code object; -1 when unknown */
    double hits, latency, stall;
} rpl_att_hot;

typedef struct rpl_att_features {
    int64_t dispatch_id;          /* from the folder name; -1 when unknown */
    char kernel[256];             /* from the "; <name>" header row, or "" */
    double hits[RPL_ISA_CLASSES]; /* instructions executed per class, over traced waves */
    double total_hits;
    double exec_hits;            /* exec-mask changes */
    double latency, stall, idle; /* cycles summed over instructions */
    double mem_latency_sum;      /* latency of VMEM/SMEM/LDS instructions and waits */
    double mem_latency_cycles;   /* mem_latency_sum per VMEM/SMEM/LDS instruction */
    double mix[RPL_ISA_CLASSES]; /* hits / total_hits */
    double stall_fraction;       /* stall / latency */
    double idle_fraction;        /* idle / (latency + idle) */
    double ipc;                  /* instructions per wave cycle: hits / (latency + idle) */
    /*
     * The hottest instructions: most latency cycles first.  Merged per
     * dispatch's top RPL_ATT_HOT, so an instruction that is hot only summed
     * over many dispatches can be missed.
     */
    rpl_att_hot hot[RPL_ATT_HOT];
    size_t nhot;
} rpl_att_features;

/* Add the sums of b into a, then recompute a's ratios. */
void rpl_att_features_add(rpl_att_features *a, const rpl_att_features *b);

/* Features of one code.json document; RPL_EINPUT (with a message) when malformed. */
int rpl_att_parse_code_json(rpl_att_features *out, const char *text, size_t len);

typedef struct rpl_att_set {
    rpl_att_features *items;
    size_t count;
    unsigned warnings; /* folders skipped */
} rpl_att_set;

/*
 * Read DIR: a ui_output_agent_*_dispatch_* folder, or a folder holding them
 * (searched one level deep).  Unreadable parts are skipped with a warning;
 * fails when out of memory, and with RPL_EINPUT for a folder of PC-sampling
 * output (no thread-trace counts), which is refused rather than skipped.
 */
int rpl_att_read(rpl_att_set *out, const char *dir);
void rpl_att_set_release(rpl_att_set *set);

#endif
