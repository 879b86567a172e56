/*
 * librpl_hsa.so, the capture library the HSA runtime loads through
 * HSA_TOOLS_LIB: state shared by its files and the functions they give
 * each other.  capture_pure.h holds the parts that make no HSA call.
 *
 *   tool.c          OnLoad/OnUnload: the environment, the API table check,
 *                   saving and replacing table slots, agents and pools
 *   hooks_memory.c  allocation wrappers -> regions
 *   hooks_code.c    executable freeze/destroy wrappers -> kernels, code
 *                   object bytes, names
 *   queue.c         queue creation through the intercept queue, the packet
 *                   handler that picks the dispatch to capture
 *   capture.c       one capture: drain, kernarg, images, forward, commit
 *   images.c        device memory streamed through a pinned bounce buffer
 *   device_info.c   what the snapshot says about the agent and runtime
 */
#ifndef RPL_HSA_TOOL_INT_H
#define RPL_HSA_TOOL_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture_pure.h"
#include "hsa_abi.h"
#include "rpl/snapshot.h"

/* A memory pool of some agent, classified once at OnLoad. */
typedef struct ch_pool {
    uint64_t handle;
    hsa_agent_t agent;
    bool cpu;     /* the pool of a CPU agent: system memory */
    bool kernarg; /* HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT */
    bool fine;    /* fine grained */
    bool alloc_allowed;
} ch_pool;

/* What the intercept handler of one queue needs. */
typedef struct ch_queue {
    hsa_queue_t *queue;
    hsa_agent_t agent;
} ch_queue;

typedef struct ch_state {
    pthread_mutex_t lock; /* everything below; held through a whole capture */
    ch_config cfg;
    bool done; /* captured, or gave up: every hook passes through */

    /* The table slots as the runtime had them, called by every wrapper. */
    rpl_hsa_core_table core;
    rpl_hsa_amd_ext_table amd;
    bool have_vmem; /* the table has the vmem slots (checked through minor_id) */
    hsa_ven_amd_loader_1_01_pfn_t loader;
    bool have_loader;
    uint64_t timestamp_hz; /* HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY */

    ch_pool *pools;
    size_t npools;
    ch_queue **queues;
    size_t nqueues, cap_queues;
    ch_regions regions;
    ch_kernels kernels;
    char *(*demangle)(const char *, char *, size_t *, int *); /* __cxa_demangle, if loaded */
} ch_state;

extern ch_state ch_g;

/* Print one line "rocm-perf capture: <message>" to stderr. */
void ch_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line for an HSA status: "<what>: <hsa_status_string>"; returns RPL_ERROR. */
int ch_hsa_failed(hsa_status_t st, const char *what);

/* pools.c: add the pools of an agent (an hsa_iterate_agents callback; data unused). */
hsa_status_t ch_pools_add_agent(hsa_agent_t agent, void *data);
const ch_pool *ch_pool_find(uint64_t handle);
/* A CPU pool that can allocate (fine grained preferred), or NULL. */
const ch_pool *ch_pool_host(void);

/* hooks_memory.c: install the wrappers into the runtime's tables. */
void ch_hook_memory(rpl_hsa_api_table *table);
/* hooks_code.c */
void ch_hook_code(rpl_hsa_api_table *table);
/* The demangled form of a mangled name (free()), or NULL. */
char *ch_demangle(const char *mangled);
/* queue.c */
void ch_hook_queues(rpl_hsa_api_table *table);

/* capture.c: capture the dispatch `packet` of kernel `k` (lock held), forwarding it through
 * `writer`. */
void ch_capture(const ch_queue *q, const void *packet, const ch_kernel *k, uint64_t ordinal,
                rpl_hsa_packet_writer writer);

/* images.c: stream device memory into the snapshot. */
typedef struct ch_bounce {
    void *host; /* pinned system memory the GPU can reach */
    size_t size;
} ch_bounce;

int ch_bounce_init(ch_bounce *b, hsa_agent_t gpu);
void ch_bounce_release(ch_bounce *b);
/*
 * Copy [addr, addr+size) of device memory into the snapshot file `path`,
 * chunk by chunk; digest (may be NULL) gets the SHA-256 of the bytes.
 */
int ch_image_write(rpl_snapshot_writer *w, ch_bounce *b, const char *path, uint64_t addr,
                   uint64_t size, unsigned char digest[32]);
/* Copy `size` bytes of device (or kernarg) memory to host memory `dst` through the buffer. */
int ch_device_read(ch_bounce *b, void *dst, uint64_t addr, size_t size);

/* device_info.c: the agent's ISA name, product name and the runtime's version (all malloc()ed). */
int ch_device_describe(rpl_snapshot *meta, hsa_agent_t agent);

/* Wait for `signal` to drop below 1; timeout_s 0 waits for ever.  RPL_ETIMEOUT past it. */
int ch_signal_wait(hsa_signal_t signal, double timeout_s);

#endif
