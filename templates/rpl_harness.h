/*
 * rpl_harness.h: the runtime calls a kernel test needs, one spelling for HIP
 * and CUDA.  Compiled by hipcc (AMD) the names map to the HIP runtime, by
 * nvcc to the CUDA runtime, so one source serves gfx* and sm_* builds.
 *
 *   RPL_CHECK(call)              end the program (status 1) when a call fails
 *   rpl_malloc / rpl_free        device memory
 *   rpl_malloc_host / rpl_free_host   pinned host memory (async copies)
 *   rpl_memcpy_h2d / _d2h, rpl_memcpy_h2d_async / _d2h_async, rpl_memset
 *   rpl_sync()                   wait for the device
 *   rpl_stream_t, rpl_stream_create / _sync / _destroy
 *   rpl_event_t, rpl_event_create / _record / _sync / _elapsed_ms / _destroy
 *   RPL_LAUNCH(kernel, grid, block, smem, stream, args...)   launch and check
 *   rpl_timer                    device-event timing of repeated launches
 *   rpl_rng, rpl_fill_uniform    seeded random inputs, equal on every platform
 *   rpl_check_close              compare with a host reference, print the first miss
 *   rpl_options_parse            --seed N --reps N --size N for the test program
 *
 * Exit status: 0 when the results match the reference, 1 otherwise (or on a
 * runtime error).  rocm-perf profiles the program's dispatches; the event
 * timing printed here is for people reading the log.
 */
#ifndef RPL_HARNESS_H
#define RPL_HARNESS_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#define RPL_HARNESS_HIP 1
#define RPL_API(name)   hip##name
typedef hipError_t rpl_error_t;
typedef hipStream_t rpl_stream_t;
typedef hipEvent_t rpl_event_t;
#define rpl_success      hipSuccess
#define rpl_error_string hipGetErrorString
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#define RPL_HARNESS_CUDA 1
#define RPL_API(name)    cuda##name
typedef cudaError_t rpl_error_t;
typedef cudaStream_t rpl_stream_t;
typedef cudaEvent_t rpl_event_t;
#define rpl_success      cudaSuccess
#define rpl_error_string cudaGetErrorString
#else
#error "rpl_harness.h: compile with hipcc (HIP) or nvcc (CUDA)"
#endif

#define RPL_CHECK(call)                                                                            \
    do {                                                                                           \
        rpl_error_t rpl_err_ = (call);                                                             \
        if (rpl_err_ != rpl_success) {                                                             \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
                         rpl_error_string(rpl_err_));                                              \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

/* Launch errors show at once; execution errors at the next synchronisation. */
#define RPL_LAUNCH(kernel, grid, block, smem, stream, ...)                                         \
    do {                                                                                           \
        kernel<<<(grid), (block), (smem), (stream)>>>(__VA_ARGS__);                                \
        RPL_CHECK(RPL_API(GetLastError)());                                                        \
    } while (0)

template <typename T> static inline T *rpl_malloc(size_t count)
{
    void *p = NULL;
    RPL_CHECK(RPL_API(Malloc)(&p, count * sizeof(T)));
    return static_cast<T *>(p);
}

template <typename T> static inline T *rpl_malloc_host(size_t count)
{
    void *p = NULL;
#ifdef RPL_HARNESS_HIP
    RPL_CHECK(hipHostMalloc(&p, count * sizeof(T), hipHostMallocDefault));
#else
    RPL_CHECK(cudaMallocHost(&p, count * sizeof(T)));
#endif
    return static_cast<T *>(p);
}

static inline void rpl_free(void *p)
{
    RPL_CHECK(RPL_API(Free)(p));
}

static inline void rpl_free_host(void *p)
{
#ifdef RPL_HARNESS_HIP
    RPL_CHECK(hipHostFree(p));
#else
    RPL_CHECK(cudaFreeHost(p));
#endif
}

template <typename T> static inline void rpl_memcpy_h2d(T *dst, const T *src, size_t count)
{
    RPL_CHECK(RPL_API(Memcpy)(dst, src, count * sizeof(T), RPL_API(MemcpyHostToDevice)));
}

template <typename T> static inline void rpl_memcpy_d2h(T *dst, const T *src, size_t count)
{
    RPL_CHECK(RPL_API(Memcpy)(dst, src, count * sizeof(T), RPL_API(MemcpyDeviceToHost)));
}

template <typename T>
static inline void rpl_memcpy_h2d_async(T *dst, const T *src, size_t count, rpl_stream_t s)
{
    RPL_CHECK(RPL_API(MemcpyAsync)(dst, src, count * sizeof(T), RPL_API(MemcpyHostToDevice), s));
}

template <typename T>
static inline void rpl_memcpy_d2h_async(T *dst, const T *src, size_t count, rpl_stream_t s)
{
    RPL_CHECK(RPL_API(MemcpyAsync)(dst, src, count * sizeof(T), RPL_API(MemcpyDeviceToHost), s));
}

template <typename T> static inline void rpl_memset(T *dst, int byte, size_t count)
{
    RPL_CHECK(RPL_API(Memset)(dst, byte, count * sizeof(T)));
}

static inline void rpl_sync(void)
{
    RPL_CHECK(RPL_API(DeviceSynchronize)());
}

static inline rpl_stream_t rpl_stream_create(void)
{
    rpl_stream_t s;
    RPL_CHECK(RPL_API(StreamCreate)(&s));
    return s;
}

static inline void rpl_stream_sync(rpl_stream_t s)
{
    RPL_CHECK(RPL_API(StreamSynchronize)(s));
}
static inline void rpl_stream_destroy(rpl_stream_t s)
{
    RPL_CHECK(RPL_API(StreamDestroy)(s));
}

static inline rpl_event_t rpl_event_create(void)
{
    rpl_event_t e;
    RPL_CHECK(RPL_API(EventCreate)(&e));
    return e;
}

static inline void rpl_event_record(rpl_event_t e, rpl_stream_t s)
{
    RPL_CHECK(RPL_API(EventRecord)(e, s));
}

static inline void rpl_event_sync(rpl_event_t e)
{
    RPL_CHECK(RPL_API(EventSynchronize)(e));
}
static inline void rpl_event_destroy(rpl_event_t e)
{
    RPL_CHECK(RPL_API(EventDestroy)(e));
}

static inline float rpl_event_elapsed_ms(rpl_event_t start, rpl_event_t stop)
{
    float ms = 0.0f;
    RPL_CHECK(RPL_API(EventElapsedTime)(&ms, start, stop));
    return ms;
}

/*
 * Device-event timing: rpl_timer_start / rpl_timer_stop around `reps`
 * launches on one stream gives the mean milliseconds per launch, measured
 * on the device (no host clock in the number).
 */
typedef struct rpl_timer {
    rpl_event_t start, stop;
    rpl_stream_t stream;
} rpl_timer;

static inline rpl_timer rpl_timer_create(rpl_stream_t s)
{
    rpl_timer t;
    t.start = rpl_event_create();
    t.stop = rpl_event_create();
    t.stream = s;
    return t;
}

static inline void rpl_timer_start(rpl_timer *t)
{
    rpl_event_record(t->start, t->stream);
}

static inline float rpl_timer_stop(rpl_timer *t, int reps)
{
    rpl_event_record(t->stop, t->stream);
    rpl_event_sync(t->stop);
    return rpl_event_elapsed_ms(t->start, t->stop) / (float)(reps > 0 ? reps : 1);
}

static inline void rpl_timer_destroy(rpl_timer *t)
{
    rpl_event_destroy(t->start);
    rpl_event_destroy(t->stop);
}

/* splitmix64: a seeded generator whose sequence is the same on every host. */
typedef struct rpl_rng {
    uint64_t state;
} rpl_rng;

static inline uint64_t rpl_rng_next(rpl_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi), from the top 24 bits (exact in a float). */
static inline void rpl_fill_uniform(float *dst, size_t count, uint64_t seed, float lo, float hi)
{
    rpl_rng r = {seed};
    for (size_t i = 0; i < count; i++) {
        float u = (float)(rpl_rng_next(&r) >> 40) / 16777216.0f;
        dst[i] = lo + (hi - lo) * u;
    }
}

/*
 * Compare `got` with the host reference `want`: |got - want| <= atol +
 * rtol * |want| for every element.  Prints the first mismatch and the count;
 * returns the number of mismatches (0: all close).
 */
static inline size_t rpl_check_close(const char *what, const float *got, const float *want,
                                     size_t count, float rtol, float atol)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < count; i++) {
        float diff = std::fabs(got[i] - want[i]);
        if (!(diff <= atol + rtol * std::fabs(want[i]))) {
            if (bad++ == 0)
                first = i;
        }
    }
    if (bad)
        std::fprintf(stderr, "%s: %zu of %zu values differ; first at %zu: got %g, want %g\n", what,
                     bad, count, first, (double)got[first], (double)want[first]);
    else
        std::printf("%s: %zu values match the reference\n", what, count);
    return bad;
}

/* The options every kernel test takes. */
typedef struct rpl_options {
    uint64_t seed; /* --seed N (default 1) */
    int reps;      /* --reps N: timed launches (default 20) */
    size_t size;   /* --size N: problem size, 0 = the test's default */
} rpl_options;

static inline rpl_options rpl_options_parse(int argc, char **argv)
{
    rpl_options o = {1, 20, 0};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        unsigned long long n = v ? std::strtoull(v, &end, 10) : 0;
        bool ok = v && end != v && *end == '\0';
        if (ok && std::strcmp(argv[i], "--seed") == 0)
            o.seed = n;
        else if (ok && std::strcmp(argv[i], "--reps") == 0 && n > 0 && n <= 1000000)
            o.reps = (int)n;
        else if (ok && std::strcmp(argv[i], "--size") == 0)
            o.size = (size_t)n;
        else {
            std::fprintf(stderr, "usage: %s [--seed N] [--reps N] [--size N]\n", argv[0]);
            std::exit(2);
        }
        i++;
    }
    return o;
}

#endif
