/*
 * The in-memory trace model.  Every profile, whatever recorded it, ends up
 * here: rocpd databases (one per process or counter pass) are read into one
 * rpl_trace, analyses read it, and the rocpd writer writes it back out.
 *
 * The model is a set of flat arrays.  Records refer to each other by array
 * index (uint32_t, RPL_NONE when absent), never by the database ids, so
 * several databases merge without clashes; each record keeps the id it had
 * in its source database for messages.  Every string is interned in the
 * trace and lives as long as it, and so is every host thread (pid, tid):
 * the per-operation records are kept small, as a trace holds millions.
 */
#ifndef RPL_TRACE_H
#define RPL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#define RPL_NONE UINT32_MAX

typedef enum rpl_agent_type { RPL_AGENT_CPU = 1, RPL_AGENT_GPU = 2 } rpl_agent_type;

/* Where records came from: one per database read. */
typedef struct rpl_source {
    const char *path;           /* the file, or a label */
    const char *schema_version; /* rocpd_metadata schema_version, e.g. "3" */
    const char *guid;           /* rocpd_metadata guid, or "" */
    const char *uuid;           /* table suffix, e.g. "_0000ddb5_...", or "" */
} rpl_source;

typedef struct rpl_process {
    uint32_t source;
    int64_t pid, ppid;
    int64_t start, end;   /* ns; 0 when unknown */
    const char *command;  /* argv joined with spaces, or "" */
    const char *hostname; /* or "" */
} rpl_process;

typedef struct rpl_agent {
    uint32_t source;
    int64_t id; /* rocpd id = KFD node id on AMD */
    rpl_agent_type type;
    int32_t absolute_index, logical_index, type_index;
    const char *name;         /* "gfx942", "sm_90" */
    const char *model_name;   /* or "" */
    const char *vendor_name;  /* or "" */
    const char *product_name; /* "AMD Instinct MI300X", "NVIDIA H100 80GB HBM3", or "" */
    cJSON *extdata;           /* parsed extdata object, owned by the trace; may be NULL */
    /* Facts taken from extdata when present (0 when unknown). */
    uint32_t cu_count; /* CUs or SMs */
    uint32_t simd_per_cu;
    uint32_t wave_front_size; /* 64/32 on AMD, 32 on NVIDIA */
    uint32_t max_waves_per_cu;
    uint32_t gfx_target_version; /* e.g. 90402 for gfx942 */
    double max_engine_clk_mhz;
} rpl_agent;

typedef struct rpl_kernel_symbol {
    uint32_t source;
    int64_t id;
    const char *name;         /* mangled kernel_name */
    const char *display_name; /* demangled or formatted; falls back to name */
    int64_t code_object_id;
    uint32_t kernarg_segment_size;
    uint32_t group_segment_size;   /* static LDS / shared bytes */
    uint32_t private_segment_size; /* static scratch / local bytes per work-item */
    uint32_t sgpr_count;
    uint32_t arch_vgpr_count; /* VGPRs; registers per thread on NVIDIA */
    uint32_t accum_vgpr_count;
} rpl_kernel_symbol;

/* A HW queue (AMD) or a stream (HIP/CUDA); both tables look alike. */
typedef struct rpl_queue {
    uint32_t source;
    int64_t id; /* rocprofiler handle, or CUDA stream id */
    int64_t pid;
    const char *name; /* "Queue 1", "Stream 3", ... */
} rpl_queue;

/* A host thread: records name theirs by index into trace->threads (rpl_trace_thread). */
typedef struct rpl_thread {
    int64_t pid;
    int64_t tid; /* 0 when unknown */
} rpl_thread;

/* Limits of a dispatch's 16-bit fields (the AQL packet's workgroup sizes are 16-bit too). */
#define RPL_WORKGROUP_MAX UINT16_MAX
#define RPL_SOURCES_MAX   UINT16_MAX

typedef struct rpl_dispatch {
    int64_t id;                    /* rocpd row id */
    int64_t dispatch_id;           /* runtime dispatch id */
    int64_t start, end;            /* ns, end >= start */
    int64_t correlation_id;        /* internal correlation (rocpd_event.stack_id), 0 if none */
    uint32_t kernel;               /* index into symbols */
    uint32_t agent;                /* index into agents */
    uint32_t queue;                /* index into queues */
    uint32_t stream;               /* index into streams, or RPL_NONE */
    uint32_t thread;               /* index into threads: pid and tid */
    uint32_t grid[3];              /* work-items (AMD) or threads (NVIDIA) per dimension */
    uint32_t group_segment_size;   /* dynamic LDS of this dispatch */
    uint32_t private_segment_size; /* scratch of this dispatch */
    uint32_t counters_first;       /* slice [first, first+count) of trace->counter_values */
    uint32_t counters_count;
    uint16_t workgroup[3]; /* work-items per workgroup / threads per block, 1..RPL_WORKGROUP_MAX */
    uint16_t source;       /* index into sources (at most RPL_SOURCES_MAX of them) */
} rpl_dispatch;

typedef enum rpl_copy_kind {
    RPL_COPY_OTHER = 0,
    RPL_COPY_HOST_TO_HOST,
    RPL_COPY_HOST_TO_DEVICE,
    RPL_COPY_DEVICE_TO_HOST,
    RPL_COPY_DEVICE_TO_DEVICE
} rpl_copy_kind;

typedef struct rpl_memcpy {
    int64_t id;
    const char *name; /* "MEMORY_COPY_HOST_TO_DEVICE", ... */
    int64_t start, end;
    uint64_t size; /* bytes */
    int64_t correlation_id;
    uint32_t source;
    uint32_t thread; /* index into threads */
    rpl_copy_kind kind;
    uint32_t src_agent, dst_agent; /* indices or RPL_NONE */
    uint32_t queue, stream;        /* indices or RPL_NONE */
} rpl_memcpy;

/* One argument of an API call, e.g. ("stream", "0x5555..."). */
typedef struct rpl_arg {
    const char *name;
    const char *type;
    const char *value;
} rpl_arg;

/* A host API call (HIP/HSA/CUDA runtime or driver) or a marker range. */
typedef struct rpl_region {
    int64_t id;
    const char *name;     /* "hipLaunchKernel", "cudaStreamWaitEvent", ... */
    const char *category; /* "HIP_RUNTIME_API_EXT", "CUDA_RUNTIME_API", ... */
    int64_t start, end;
    int64_t correlation_id;        /* internal correlation (stack_id) */
    int64_t parent_correlation_id; /* ancestor (parent_stack_id) */
    uint32_t source;
    uint32_t thread;     /* index into threads */
    uint32_t args_first; /* slice of trace->args */
    uint32_t args_count;
} rpl_region;

typedef struct rpl_counter_value {
    uint32_t counter; /* index into trace->counter_names */
    double value;     /* summed over instances (as the counters_collection view) */
} rpl_counter_value;

#define RPL_ARRAY(type)                                                                            \
    struct {                                                                                       \
        type *items;                                                                               \
        uint32_t count, cap;                                                                       \
    }

typedef struct rpl_trace {
    RPL_ARRAY(rpl_source) sources;
    RPL_ARRAY(rpl_process) processes;
    RPL_ARRAY(rpl_agent) agents;
    RPL_ARRAY(rpl_kernel_symbol) symbols;
    RPL_ARRAY(rpl_queue) queues;
    RPL_ARRAY(rpl_queue) streams;
    RPL_ARRAY(rpl_thread) threads; /* distinct, in order of first use */
    RPL_ARRAY(rpl_dispatch) dispatches;
    RPL_ARRAY(rpl_memcpy) memcpys;
    RPL_ARRAY(rpl_region) regions;
    RPL_ARRAY(rpl_arg) args;
    RPL_ARRAY(const char *) counter_names;
    RPL_ARRAY(rpl_counter_value) counter_values; /* dispatch slices, sorted by counter */
    struct rpl_strpool *strings;                 /* private */
    uint32_t *thread_slots;                      /* private: hash of threads */
    uint32_t thread_slot_count;
} rpl_trace;

int rpl_trace_new(rpl_trace **out);
void rpl_trace_free(rpl_trace *trace);

/* Intern a string (NULL is taken as ""); NULL only when out of memory. */
const char *rpl_trace_intern(rpl_trace *trace, const char *s);

/*
 * Builders used by readers, the CUPTI recorder and fixture generators.  Each
 * copies *rec into the array (interning its strings, taking ownership of an
 * agent's extdata) and stores the new index in *index (may be NULL).
 */
int rpl_trace_add_source(rpl_trace *trace, const rpl_source *rec, uint32_t *index);
int rpl_trace_add_process(rpl_trace *trace, const rpl_process *rec, uint32_t *index);
int rpl_trace_add_agent(rpl_trace *trace, const rpl_agent *rec, uint32_t *index);
int rpl_trace_add_symbol(rpl_trace *trace, const rpl_kernel_symbol *rec, uint32_t *index);
int rpl_trace_add_queue(rpl_trace *trace, const rpl_queue *rec, uint32_t *index);
int rpl_trace_add_stream(rpl_trace *trace, const rpl_queue *rec, uint32_t *index);
int rpl_trace_add_dispatch(rpl_trace *trace, const rpl_dispatch *rec, uint32_t *index);
int rpl_trace_add_memcpy(rpl_trace *trace, const rpl_memcpy *rec, uint32_t *index);
/* Adds the region and copies its `nargs` arguments. */
int rpl_trace_add_region(rpl_trace *trace, const rpl_region *rec, const rpl_arg *args,
                         uint32_t nargs, uint32_t *index);
/*
 * Index of the host thread (pid, tid), added when new: what a record's
 * `thread` holds.  RPL_NONE when it cannot be added (out of memory, or
 * 2^30 threads): the error is set, and rpl_trace_add_* of a record naming
 * RPL_NONE returns it.
 */
uint32_t rpl_trace_thread(rpl_trace *trace, int64_t pid, int64_t tid);

/* The pid and tid of a record's thread. */
static inline int64_t rpl_trace_pid(const rpl_trace *trace, uint32_t thread)
{
    return trace->threads.items[thread].pid;
}

static inline int64_t rpl_trace_tid(const rpl_trace *trace, uint32_t thread)
{
    return trace->threads.items[thread].tid;
}

/* Index of a counter name, added when new. */
int rpl_trace_counter_index(rpl_trace *trace, const char *name, uint32_t *index);

/*
 * Set the counters of one dispatch.  Values for the same counter are summed;
 * the dispatch's slice is replaced.
 */
int rpl_trace_set_dispatch_counters(rpl_trace *trace, uint32_t dispatch,
                                    const rpl_counter_value *values, uint32_t count);

/* Value of a counter on a dispatch; false when the dispatch lacks it. */
bool rpl_dispatch_counter(const rpl_trace *trace, const rpl_dispatch *d, uint32_t counter,
                          double *value);

/*
 * The array lengths of a trace.  Readers only append, so a failed read is
 * undone by cutting every array back to its mark (strings interned
 * meanwhile stay in the pool, unreferenced).
 */
typedef struct rpl_trace_mark {
    uint32_t sources, processes, agents, symbols, queues, streams, threads, dispatches, memcpys,
        regions, args, counter_names, counter_values;
} rpl_trace_mark;

void rpl_trace_mark_take(const rpl_trace *trace, rpl_trace_mark *mark);
void rpl_trace_rollback(rpl_trace *trace, const rpl_trace_mark *mark);

/*
 * Free the API regions and their arguments, for a reader of the trace that
 * has no more use for them (the analysis, once its DAG is built): on runtime
 * API traces they are about half of the trace's memory.
 */
void rpl_trace_release_api(rpl_trace *trace);

/*
 * Keep only the regions r with keep[r] set, with their arguments, in their
 * order (region indices change; strings stay valid), in arrays cut to fit:
 * for a reader of the trace that needs a few of its API regions.  On error
 * (out of memory) the trace is unchanged.
 */
int rpl_trace_keep_regions(rpl_trace *trace, const uint8_t *keep);

/* Fill the agent's cached facts (cu_count, ...) from its extdata. */
void rpl_agent_refresh_facts(rpl_agent *agent);

rpl_copy_kind rpl_copy_kind_from_name(const char *name);
const char *rpl_copy_kind_name(rpl_copy_kind kind);

#endif
