/*
 * rpl_gen_rocpd: write a synthetic rocpd (schema 3) database for benchmarks
 * and tests.  N kernel dispatches and C memory copies over Q queues (one
 * stream per queue), K kernels with Zipf popularity and log-normal
 * durations, runtime helper kernels among them, and every W-th operation a
 * cross-queue dependency written as hipEventRecord / hipStreamWaitEvent
 * regions (docs/schemas/dag-dependencies.md).  Deterministic for a seed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "rpl/error.h"
#include "rpl/rocpd.h"
#include "rpl/trace.h"

#define PID       4242
#define TID       4243
#define T_BASE    3600000000000LL /* an hour of uptime, ns (CLOCK_BOOTTIME) */
#define LAUNCH_NS 5000            /* API launch call before the GPU start, with --api */

typedef struct gen_opts {
    uint64_t dispatches, copies;
    uint32_t queues, kernels, wait_every;
    unsigned long seed;
    int api, hip_args;
    const char *out;
} gen_opts;

static const char *const bases[] = {
    "gemm_bf16_tn",      "softmax_fwd",       "layernorm_fwd",    "flash_attention_fwd",
    "gelu_bias_add",     "rmsnorm_fwd",       "rotary_embed",     "reduce_sum_rows",
    "transpose_tile_32", "conv2d_nhwc_3x3",   "embedding_gather", "adam_update",
    "topk_select",       "cross_entropy_bwd", "dropout_fwd",      "all_reduce_pack",
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

typedef struct lane_state {
    int64_t cursor; /* end of the last operation */
    int64_t last_start;
    int64_t last_end;
    int has_last;
} lane_state;

typedef struct gen {
    gen_opts o;
    rpl_trace *t;
    gsl_rng *rng;
    gsl_ran_discrete_t *pick;
    double *base_ns; /* per kernel */
    lane_state *lanes;
    int64_t next_corr;
    uint64_t events;
} gen;

static void usage(FILE *out)
{
    fprintf(out, "usage: rpl_gen_rocpd --dispatches N [--queues Q] [--copies C] [--kernels K]\n"
                 "                     [--seed S] [--waits-every W] [--api [--hip-args]] OUT.db\n"
                 "  --queues Q        queues (one stream each), default 4\n"
                 "  --copies C        memory copies, default 0\n"
                 "  --kernels K       distinct kernels (2 of them runtime helpers), default 32\n"
                 "  --seed S          random seed, default 1\n"
                 "  --waits-every W   a cross-queue event wait every W operations (0: none),\n"
                 "                    default 1000\n"
                 "  --api             also write a launch API region for every operation\n"
                 "  --hip-args        with --api, the launch regions carry every parameter as\n"
                 "                    rocprofv3 writes it (hipLaunchKernel: six arguments,\n"
                 "                    hipMemcpyAsync: five), not the stream alone\n");
}

static int parse_u64(const char *arg, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_args(gen_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dispatches", required_argument, NULL, 'n'},
        {"queues", required_argument, NULL, 'q'},
        {"copies", required_argument, NULL, 'c'},
        {"kernels", required_argument, NULL, 'k'},
        {"seed", required_argument, NULL, 's'},
        {"waits-every", required_argument, NULL, 'w'},
        {"api", no_argument, NULL, 'a'},
        {"hip-args", no_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    uint64_t v;
    int opt, have_n = 0;

    *o = (gen_opts){0, 0, 4, 32, 1000, 1, 0, 0, NULL};
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = 0;

        switch (opt) {
        case 'n':
            bad = parse_u64(optarg, 100000000, &o->dispatches);
            have_n = 1;
            break;
        case 'q':
            bad = parse_u64(optarg, 4096, &v) || v == 0;
            o->queues = (uint32_t)v;
            break;
        case 'c':
            bad = parse_u64(optarg, 100000000, &o->copies);
            break;
        case 'k':
            bad = parse_u64(optarg, 1000000, &v) || v == 0;
            o->kernels = (uint32_t)v;
            break;
        case 's':
            bad = parse_u64(optarg, UINT32_MAX, &v);
            o->seed = (unsigned long)v;
            break;
        case 'w':
            bad = parse_u64(optarg, UINT32_MAX, &v);
            o->wait_every = (uint32_t)v;
            break;
        case 'a':
            o->api = 1;
            break;
        case 'H':
            o->hip_args = 1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "rpl_gen_rocpd: bad value for option '%s'\n", argv[optind - 1]);
            return 2;
        }
    }
    if (!have_n || optind != argc - 1 || (o->hip_args && !o->api)) {
        usage(stderr);
        return 2;
    }
    o->out = argv[optind];
    return 0;
}

static int add_static(gen *g)
{
    rpl_trace *t = g->t;
    rpl_source src = {g->o.out, "3", "", ""};
    rpl_process proc = {0, PID, 1, T_BASE - 1000000, 0, "synthetic_app --steps 1000", "bench-node"};
    rpl_agent cpu = {0}, gpu = {0};
    cJSON *ext = cJSON_Parse("{\"cu_count\":304,\"simd_per_cu\":4,\"max_waves_per_cu\":32,"
                             "\"wave_front_size\":64,\"max_engine_clk_fcompute\":2100,"
                             "\"gfx_target_version\":90402}");
    int rc;

    if (!ext)
        return rpl_error_oom();
    cpu = (rpl_agent){.type = RPL_AGENT_CPU,
                      .id = 0,
                      .name = "AMD EPYC 9654",
                      .model_name = "",
                      .vendor_name = "CPU",
                      .product_name = "AMD EPYC 9654"};
    gpu = (rpl_agent){.type = RPL_AGENT_GPU,
                      .id = 1,
                      .absolute_index = 1,
                      .logical_index = 1,
                      .name = "gfx942",
                      .model_name = "aqua_vanjaram",
                      .vendor_name = "AMD",
                      .product_name = "AMD Instinct MI300X",
                      .extdata = ext};
    rpl_agent_refresh_facts(&gpu);
    rc = rpl_trace_add_source(t, &src, NULL);
    if (!rc)
        rc = rpl_trace_add_process(t, &proc, NULL);
    if (!rc)
        rc = rpl_trace_add_agent(t, &cpu, NULL);
    if (!rc)
        rc = rpl_trace_add_agent(t, &gpu, NULL);
    else
        cJSON_Delete(ext);
    for (uint32_t q = 0; !rc && q < g->o.queues; q++) {
        char name[32];
        rpl_queue queue = {0, (int64_t)q + 1, PID, name};

        snprintf(name, sizeof(name), "Queue %u", q + 1);
        rc = rpl_trace_add_queue(t, &queue, NULL);
        snprintf(name, sizeof(name), "Stream %u", q + 1);
        if (!rc)
            rc = rpl_trace_add_stream(t, &queue, NULL);
    }
    return rc;
}

static int add_kernels(gen *g)
{
    uint32_t k = g->o.kernels, nhelpers = k >= 4 ? 2 : 0;
    double *weights = malloc(k * sizeof(*weights));
    int rc = 0;

    g->base_ns = malloc(k * sizeof(*g->base_ns));
    if (!weights || !g->base_ns) {
        free(weights);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < k && !rc; i++) {
        char name[128], display[160];
        rpl_kernel_symbol s = {0};

        if (i >= k - nhelpers) {
            snprintf(name, sizeof(name), "%s",
                     i == k - 1 ? "__amd_rocclr_fillBufferAligned" : "__amd_rocclr_copyBuffer");
            snprintf(display, sizeof(display), "%s", name);
        } else if (i < NBASES) {
            snprintf(name, sizeof(name), "_Z%zu%sPfi", strlen(bases[i]), bases[i]);
            snprintf(display, sizeof(display), "%s(float*, int)", bases[i]);
        } else {
            char base[96];

            snprintf(base, sizeof(base), "%s_v%u", bases[i % NBASES], i / (uint32_t)NBASES);
            snprintf(name, sizeof(name), "_Z%zu%sPfi", strlen(base), base);
            snprintf(display, sizeof(display), "%s(float*, int)", base);
        }
        s = (rpl_kernel_symbol){.id = (int64_t)i + 1,
                                .name = name,
                                .display_name = display,
                                .code_object_id = 1,
                                .kernarg_segment_size = 16,
                                .group_segment_size = (uint32_t)(i % 4) * 16384,
                                .sgpr_count = 32,
                                .arch_vgpr_count = 64 + (i % 3) * 32};
        rc = rpl_trace_add_symbol(g->t, &s, NULL);
        /* Zipf popularity; helpers are frequent but short. */
        weights[i] = 1.0 / (double)(i + 1);
        g->base_ns[i] = i >= k - nhelpers ? 2000.0 : 1000.0 + gsl_ran_lognormal(g->rng, 9.9, 1.0);
        if (g->base_ns[i] > 5e6)
            g->base_ns[i] = 5e6;
    }
    g->pick = rc ? NULL : gsl_ran_discrete_preproc(k, weights);
    free(weights);
    if (!rc && !g->pick)
        rc = rpl_error_oom();
    return rc;
}

/* An API region with up to six named arguments. */
static int add_region(gen *g, const char *name, int64_t start, int64_t corr, const char *const *an,
                      const char *const *av, uint32_t nargs)
{
    rpl_region r = {.thread = rpl_trace_thread(g->t, PID, TID),
                    .start = start,
                    .end = start + 1500,
                    .name = name,
                    .category = "HIP_RUNTIME_API_EXT",
                    .correlation_id = corr};
    rpl_arg args[6];

    for (uint32_t i = 0; i < nargs && i < 6; i++)
        args[i] = (rpl_arg){an[i], i == 2 ? "unsigned int" : "void*", av[i]};
    return rpl_trace_add_region(g->t, &r, args, nargs, NULL);
}

/*
 * The handle of queue q's stream in API arguments: its rocpd id, or with
 * --hip-args a pointer as rocprofv3 prints a hipStream_t (found only through
 * the launches that carry it).
 */
static void stream_handle(const gen *g, uint32_t q, char *buf, size_t size)
{
    if (g->o.hip_args)
        snprintf(buf, size, "0x5581a0%06x", q + 1);
    else
        snprintf(buf, size, "%u", q + 1);
}

/* Cross-queue dependency: q's next operation waits for the last one of another queue. */
static int add_wait(gen *g, uint32_t q, int64_t *min_start)
{
    uint32_t r = (q + 1 + (uint32_t)gsl_rng_uniform_int(g->rng, g->o.queues - 1)) % g->o.queues;
    lane_state *src = &g->lanes[r], *dst = &g->lanes[q];
    int64_t launch = g->o.api ? LAUNCH_NS : 0, rec, wait;
    char event[32], rstream[24], qstream[24];
    const char *rn[] = {"event", "stream"}, *wn[] = {"stream", "event", "flags"};
    const char *rv[] = {event, rstream}, *wv[] = {qstream, event, "0"};
    int rc;

    if (!src->has_last)
        return 0;
    snprintf(event, sizeof(event), "0x7f3a%08" PRIx64, ++g->events);
    stream_handle(g, r, rstream, sizeof(rstream));
    stream_handle(g, q, qstream, sizeof(qstream));
    /* After the recorded operation was enqueued, before the next one of its queue. */
    rec = src->last_start - launch + 1;
    wait = (dst->has_last ? dst->last_start - launch : rec) + 1;
    if (wait <= rec)
        wait = rec + 1;
    rc = add_region(g, "hipEventRecord", rec, g->next_corr++, rn, rv, 2);
    if (!rc)
        rc = add_region(g, "hipStreamWaitEvent", wait, g->next_corr++, wn, wv, 3);
    *min_start = src->last_end + 2000;
    if (*min_start < wait + launch + 1)
        *min_start = wait + launch + 1;
    return rc;
}

static int add_op(gen *g, uint64_t i, int is_copy)
{
    uint32_t q = (uint32_t)gsl_rng_uniform_int(g->rng, g->o.queues);
    lane_state *lane = &g->lanes[q];
    int64_t min_start = 0, start, dur, corr = g->next_corr++;
    int rc = 0;

    if (g->o.wait_every && g->o.queues > 1 && i % g->o.wait_every == g->o.wait_every - 1)
        rc = add_wait(g, q, &min_start);
    start = lane->cursor + 1000 + (int64_t)gsl_rng_uniform_int(g->rng, 3000);
    if (start < min_start)
        start = min_start;
    if (is_copy) {
        static const rpl_copy_kind kinds[] = {RPL_COPY_HOST_TO_DEVICE, RPL_COPY_DEVICE_TO_HOST,
                                              RPL_COPY_DEVICE_TO_DEVICE};
        rpl_copy_kind kind = kinds[gsl_rng_uniform_int(g->rng, 3)];
        uint64_t size = 4096ull << gsl_rng_uniform_int(g->rng, 14);
        rpl_memcpy m = {.id = (int64_t)i + 1,
                        .name = rpl_copy_kind_name(kind),
                        .kind = kind,
                        .thread = rpl_trace_thread(g->t, PID, TID),
                        .start = start,
                        .size = size,
                        .src_agent = kind == RPL_COPY_HOST_TO_DEVICE ? 0 : 1,
                        .dst_agent = kind == RPL_COPY_DEVICE_TO_HOST ? 0 : 1,
                        .queue = RPL_NONE,
                        .stream = q,
                        .correlation_id = corr};

        dur = 1500 + (int64_t)(size / 50); /* ~50 GB/s */
        m.end = start + dur;
        rc = rc ? rc : rpl_trace_add_memcpy(g->t, &m, NULL);
    } else {
        uint32_t k = (uint32_t)gsl_ran_discrete(g->rng, g->pick);
        uint32_t blocks = 64u << gsl_rng_uniform_int(g->rng, 7);
        rpl_dispatch d = {.id = (int64_t)i + 1,
                          .dispatch_id = (int64_t)i + 1,
                          .kernel = k,
                          .agent = 1,
                          .queue = q,
                          .stream = q,
                          .thread = rpl_trace_thread(g->t, PID, TID),
                          .start = start,
                          .grid = {blocks * 256, 1, 1},
                          .workgroup = {256, 1, 1},
                          .correlation_id = corr};

        dur = (int64_t)(g->base_ns[k] * gsl_ran_lognormal(g->rng, 0.0, 0.05));
        d.end = start + (dur > 0 ? dur : 1);
        rc = rc ? rc : rpl_trace_add_dispatch(g->t, &d, NULL);
    }
    if (!rc && g->o.api) {
        /* The parameters as rocprofv3 names them; the stream is the one the DAG reads. */
        static const char *const launch[] = {"function_address", "numBlocks", "dimBlocks", "args",
                                             "sharedMemBytes",   "stream"};
        static const char *const copy[] = {"dst", "src", "sizeBytes", "kind", "stream"};
        char stream[24], blocks[32], addr[32];
        const char *lv[] = {addr, blocks, "{256, 1, 1}", "0x7ffc3a2e1f40", "0", stream};
        const char *cv[] = {addr, "0x7f3a00200000", blocks, "hipMemcpyDeviceToDevice", stream};
        const char *const *an = is_copy ? copy : launch, *const *av = is_copy ? cv : lv;
        uint32_t n = is_copy ? 5 : 6;

        stream_handle(g, q, stream, sizeof(stream));
        snprintf(addr, sizeof(addr), "0x7f3a%08" PRIx64, i);
        snprintf(blocks, sizeof(blocks), "%" PRIu64, 64 + i % 4096);
        if (!g->o.hip_args) { /* the stream alone */
            an += n - 1;
            av += n - 1;
            n = 1;
        }
        rc = add_region(g, is_copy ? "hipMemcpyAsync" : "hipLaunchKernel", start - LAUNCH_NS, corr,
                        an, av, n);
    }
    lane->last_start = start;
    lane->last_end = is_copy ? g->t->memcpys.items[g->t->memcpys.count - 1].end
                             : g->t->dispatches.items[g->t->dispatches.count - 1].end;
    lane->cursor = lane->last_end;
    lane->has_last = 1;
    return rc;
}

static int generate(gen *g)
{
    uint64_t total = g->o.dispatches + g->o.copies, copies = 0;
    int rc = add_static(g);

    if (!rc)
        rc = add_kernels(g);
    for (uint32_t q = 0; q < g->o.queues; q++)
        g->lanes[q].cursor = T_BASE;
    /* Copies spread evenly among the dispatches. */
    for (uint64_t i = 0; i < total && !rc; i++) {
        int is_copy = copies < g->o.copies && (i + 1) * g->o.copies / total > copies;

        copies += (uint64_t)is_copy;
        rc = add_op(g, i, is_copy);
    }
    if (!rc) {
        rpl_rocpd_write_opts wo = {NULL, "bench-node"};
        int64_t end = T_BASE;

        for (uint32_t q = 0; q < g->o.queues; q++)
            if (g->lanes[q].cursor > end)
                end = g->lanes[q].cursor;
        g->t->processes.items[0].end = end + 1000000;

        rc = rpl_rocpd_write(g->t, g->o.out, &wo);
    }
    return rc;
}

int main(int argc, char **argv)
{
    gen g = {0};
    int rc = parse_args(&g.o, argc, argv);

    if (rc)
        return rc;
    g.rng = gsl_rng_alloc(gsl_rng_mt19937);
    g.lanes = calloc(g.o.queues, sizeof(*g.lanes));
    if (!g.rng || !g.lanes || rpl_trace_new(&g.t)) {
        fprintf(stderr, "rpl_gen_rocpd: out of memory\n");
        return 3;
    }
    gsl_rng_set(g.rng, g.o.seed);
    g.next_corr = 1;
    rc = generate(&g);
    if (rc)
        fprintf(stderr, "rpl_gen_rocpd: %s\n", rpl_error_last()->message);
    else
        printf("%s: %" PRIu64 " dispatches, %" PRIu64 " copies, %u queues, %u kernels, %" PRIu64
               " event waits\n",
               g.o.out, g.o.dispatches, g.o.copies, g.o.queues, g.o.kernels, g.events);
    rpl_trace_free(g.t);
    gsl_ran_discrete_free(g.pick);
    gsl_rng_free(g.rng);
    free(g.base_ns);
    free(g.lanes);
    return rc ? rpl_exit_code(rc) : 0;
}
