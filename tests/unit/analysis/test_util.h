/*
 * Shared by the analysis unit tests: assert_near (../assert_near.h) and small
 * builders for in-memory traces.  Include after <cmocka.h>.
 */
#ifndef RPL_TEST_ANALYSIS_UTIL_H
#define RPL_TEST_ANALYSIS_UTIL_H

#include <math.h>
#include <stdio.h>

#include "../assert_near.h"
#include "rpl/trace.h"

static inline rpl_trace *tb_new(void)
{
    rpl_trace *t;

    assert_int_equal(rpl_trace_new(&t), 0);
    return t;
}

static inline uint32_t tb_source(rpl_trace *t, const char *path)
{
    rpl_source s = {.path = path, .schema_version = "3"};
    uint32_t i;

    assert_int_equal(rpl_trace_add_source(t, &s, &i), 0);
    return i;
}

static inline uint32_t tb_gpu(rpl_trace *t, uint32_t source, const char *name, const char *product,
                              int32_t index, uint32_t cu_count)
{
    rpl_agent a = {.source = source,
                   .id = index,
                   .type = RPL_AGENT_GPU,
                   .absolute_index = index,
                   .name = name,
                   .product_name = product,
                   .cu_count = cu_count,
                   .wave_front_size = 64,
                   .max_engine_clk_mhz = 2100};
    uint32_t i;

    assert_int_equal(rpl_trace_add_agent(t, &a, &i), 0);
    return i;
}

static inline uint32_t tb_cpu(rpl_trace *t, uint32_t source)
{
    rpl_agent a = {.source = source, .type = RPL_AGENT_CPU, .name = "x86_64"};
    uint32_t i;

    assert_int_equal(rpl_trace_add_agent(t, &a, &i), 0);
    return i;
}

static inline uint32_t tb_symbol(rpl_trace *t, uint32_t source, const char *mangled,
                                 const char *display)
{
    rpl_kernel_symbol s = {.source = source,
                           .id = t->symbols.count + 1,
                           .name = mangled,
                           .display_name = display,
                           .arch_vgpr_count = 32,
                           .accum_vgpr_count = 4,
                           .sgpr_count = 16,
                           .group_segment_size = 1024,
                           .private_segment_size = 8};
    uint32_t i;

    assert_int_equal(rpl_trace_add_symbol(t, &s, &i), 0);
    return i;
}

static inline void tb_dispatch(rpl_trace *t, uint32_t symbol, uint32_t agent, int64_t start,
                               int64_t end)
{
    rpl_dispatch d = {.source = t->symbols.items[symbol].source,
                      .id = t->dispatches.count + 1,
                      .dispatch_id = t->dispatches.count + 1,
                      .kernel = symbol,
                      .agent = agent,
                      .queue = RPL_NONE,
                      .stream = RPL_NONE,
                      .thread = rpl_trace_thread(t, 0, 0),
                      .start = start,
                      .end = end,
                      .grid = {256, 1, 1},
                      .workgroup = {64, 1, 1}};

    assert_int_equal(rpl_trace_add_dispatch(t, &d, NULL), 0);
}

static inline void tb_copy(rpl_trace *t, rpl_copy_kind kind, int64_t start, int64_t end,
                           uint64_t size)
{
    rpl_memcpy m = {.id = t->memcpys.count + 1,
                    .name = rpl_copy_kind_name(kind),
                    .kind = kind,
                    .start = start,
                    .end = end,
                    .size = size,
                    .src_agent = RPL_NONE,
                    .dst_agent = RPL_NONE,
                    .queue = RPL_NONE,
                    .stream = RPL_NONE,
                    .thread = rpl_trace_thread(t, 0, 0)};

    assert_int_equal(rpl_trace_add_memcpy(t, &m, NULL), 0);
}

#endif
