// Kernels for the optimize GPU check (gpu/optimize/check.sh), one program:
//   gather_sum    each thread sums `k` loads 4099 floats apart; `#pragma unroll 1` keeps one
//                 load in flight per iteration, so unrolling (more in flight) should help;
//   stream_scale  a grid-stride y = a*x + y over a full grid (one or two iterations per
//                 thread, bandwidth-bound), where unrolling should not help.
// Usage: unroll_kernels [--seed N] [--reps N] [--size N]; exit 1 when a result is wrong.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                          \
            std::exit(3);                                                                          \
        }                                                                                          \
    } while (0)

// x holds n + k * STRIDE elements.  The stride is a constant so that the addresses of an
// unrolled loop are immediate offsets: unrolling costs few registers (no occupancy drop).
#define STRIDE 4099

__global__ void gather_sum(const float *__restrict__ x, float *__restrict__ out, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
#pragma unroll 1
    for (int j = 0; j < k; j++)
        acc += x[i + j * STRIDE];
    out[i] = acc;
}

__global__ void stream_scale(int n, float a, const float *__restrict__ x, float *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

static unsigned long long rng_state;
static float next_uniform()
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng_state >> 40) & 0xffffff) / 16777216.0f * 2.0f - 1.0f;
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1;
    int reps = 20, n = 1 << 22;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--seed"))
            seed = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--reps"))
            reps = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--size"))
            n = std::atoi(argv[i + 1]);
        else {
            std::fprintf(stderr, "usage: %s [--seed N] [--reps N] [--size N]\n", argv[0]);
            return 2;
        }
    }
    const int k = 64, block = 256, grid = (n + block - 1) / block;
    const size_t nx = (size_t)n + (size_t)k * STRIDE;
    const float a = 1.5f;
    rng_state = seed;
    std::vector<float> hx(nx), hy(n), got(n);
    for (size_t i = 0; i < nx; i++)
        hx[i] = next_uniform();
    for (int i = 0; i < n; i++)
        hy[i] = next_uniform();
    float *x, *y, *out;
    CHECK(cudaMalloc(&x, nx * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemcpy(x, hx.data(), nx * sizeof(float), cudaMemcpyHostToDevice));
    for (int r = 0; r < reps; r++) {
        CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        gather_sum<<<grid, block>>>(x, out, n, k);
        stream_scale<<<grid, block>>>(n, a, x, y);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    CHECK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float s = 0.0f; // the kernel's order, in float: results are compared exactly
        for (int j = 0; j < k; j++)
            s += hx[(size_t)i + (size_t)j * STRIDE];
        if (got[i] != s && bad++ < 3)
            std::fprintf(stderr, "gather_sum[%d] = %g, want %g\n", i, got[i], s);
    }
    CHECK(cudaMemcpy(got.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (std::fabs(got[i] - (a * hx[i] + hy[i])) > 1e-5f && bad++ < 6)
            std::fprintf(stderr, "stream_scale[%d] = %g, want %g\n", i, got[i], a * hx[i] + hy[i]);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(out));
    if (bad) {
        std::fprintf(stderr, "%d wrong results (seed %llu)\n", bad, seed);
        return 1;
    }
    std::printf("ok (seed %llu, n %d, reps %d)\n", seed, n, reps);
    return 0;
}
