/*
 * TEST DOUBLE: a fake HSA runtime, standing in for ROCr at the boundary
 * librpl_hsa.so talks to, the API table that OnLoad receives.  There is no
 * AMD GPU on the machines that run the tests, so the capture library's
 * whole path (table check, hooks, queue interception, drain, images,
 * commit) runs against this instead: "device memory" is host memory,
 * hsa_memory_copy is memcpy, and the intercept queue's packet writer
 * executes packets at once: a BARRIER_AND decrements its completion
 * signal, a KERNEL_DISPATCH runs a host version of the fixture kernel
 * (tests/fixtures/hsa/kernels.hip) named by its kernel_object.  Every
 * packet written is logged for the tests to inspect.
 */
#ifndef RPL_TEST_FAKE_HSA_H
#define RPL_TEST_FAKE_HSA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsa_abi.h"

/* Agents and pools of the fake system. */
#define FAKE_CPU_AGENT     1u
#define FAKE_GPU_AGENT     2u
#define FAKE_POOL_HOST     0x100u
#define FAKE_POOL_KERNARG  0x101u
#define FAKE_POOL_DEVICE   0x200u
#define FAKE_REGION_DEVICE 0x300u
#define FAKE_ISA_NAME      "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
#define FAKE_MAX_LOG       64

typedef struct fake_symbol {
    char name[64];
    bool kernel;
    uint64_t offset; /* from the load base: descriptor or variable */
    uint32_t size;   /* variables */
    uint32_t kernarg_size, kernarg_align, group, private_size;
} fake_symbol;

typedef struct fake_queue {
    hsa_queue_t queue;
    hsa_agent_t agent;
    rpl_hsa_intercept_handler handler; /* NULL: a plain queue */
    void *data;
    uint64_t next_index;
} fake_queue;

typedef struct fake_hsa {
    rpl_hsa_api_table root;
    rpl_hsa_core_table core;
    rpl_hsa_amd_ext_table amd;
    hsa_ven_amd_loader_1_01_pfn_t loader;

    /* The loaded executable (one at a time) and its code object. */
    const unsigned char *code;
    size_t code_len;
    unsigned char *load_base; /* the "loaded segments": kernel objects and variables live here */
    size_t load_size;
    fake_symbol symbols[16];
    size_t nsymbols;
    bool frozen;

    /* Everything the packet writer received, in order. */
    unsigned char log[FAKE_MAX_LOG][64];
    size_t nlog;
    unsigned plain_queues, intercept_queues;
    unsigned signals_live; /* created and not destroyed */
} fake_hsa;

extern fake_hsa fake;

/* Fresh tables (AmdExtTable major `amd_major`) and state; the fixture code object is `code`. */
void fake_hsa_reset(unsigned amd_major, const unsigned char *code, size_t len);
/* Add the executable's symbols, kernels from the fixture's descriptors (see fake_hsa.c). */
void fake_hsa_add_symbol(const char *name, bool kernel, uint64_t offset, uint32_t size,
                         uint32_t kernarg_size, uint32_t group, uint32_t private_size);
/*
 * The executable's symbols from the fixture code object (kernels.hsaco):
 * plain, increment and lds_scratch with the sizes of their descriptors
 * (plain's kernarg size 0 when asked, as assembly kernels report it), the
 * module variable counter, and a runtime helper kernel that does nothing.
 * -1 when the code object lacks one.
 */
int fake_hsa_add_fixture_symbols(bool zero_plain_kernarg);
/* The kernel_object / address of a symbol of the loaded executable. */
uint64_t fake_hsa_address(const char *name);

/* Signals: a handle is a pointer to the value. */
hsa_signal_t fake_signal_new(int64_t value);
int64_t fake_signal_value(hsa_signal_t s);

/* What the application does: ring a queue's doorbell after writing `n` packets. */
void fake_hsa_submit(hsa_queue_t *q, const void *packets, size_t n);

#endif
