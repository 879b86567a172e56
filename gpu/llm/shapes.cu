// gpu/llm/shapes.cu: the kernel of the grounded check (docs/validation/llm-optimize-gpu.md,
// issue 26).  axpby writes out = a * x + y with a grid-stride loop over a permutation of
// the elements (neighbouring threads 4099 apart: uncoalesced, the thing to fix).  The
// program launches it at three sizes, checks each result once, then times `--reps` more
// launches at the first size without checking them, as many benchmarks do.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

__global__ void axpby(int n, float a, const float *__restrict__ x, const float *__restrict__ y,
                      float *__restrict__ out)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int j = (int)(((long long)i * 4099) % n); /* a permutation: 4099 is prime */
        out[j] = a * x[j] + y[j];
    }
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                       \
            std::exit(2);                                                                          \
        }                                                                                          \
    } while (0)

/* One size: fresh buffers, one launch, its result checked; `reps` more launches timed. */
static int run(int n, unsigned seed, int reps)
{
    std::vector<float> hx(n), hy(n), out(n);
    float *x, *y, *o, ms = 0;
    const float a = 2.5f;
    const int block = 256, grid = (n + 4 * block - 1) / (4 * block); /* 4 elements a thread */
    cudaEvent_t t0, t1;
    int bad = 0;

    srand(seed);
    for (int i = 0; i < n; i++) {
        hx[i] = (float)rand() / RAND_MAX - 0.5f;
        hy[i] = (float)rand() / RAND_MAX - 0.5f;
    }
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&o, n * sizeof(float)));
    CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    axpby<<<grid, block>>>(n, a, x, y, o);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), o, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) { /* the device may contract a * x + y into one FMA */
        float want = a * hx[i] + hy[i];
        bad += std::fabs(out[i] - want) > 1e-6f * (1.0f + std::fabs(want));
    }
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaEventRecord(t0));
    for (int r = 0; r < reps; r++)
        axpby<<<grid, block>>>(n, a, x, y, o);
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    std::printf("axpby: n=%d %d wrong%s", n, bad, reps ? "" : "\n");
    if (reps)
        std::printf(", %.4f ms/launch\n", ms / reps);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(o));
    return bad;
}

int main(int argc, char **argv)
{
    int n = 1 << 25, reps = 0;
    unsigned seed = 1;
    int bad = 0;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--size"))
            n = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--reps"))
            reps = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--seed"))
            seed = (unsigned)std::strtoul(argv[i + 1], NULL, 10);
    }
    if (n < 2) {
        std::fprintf(stderr, "usage: shapes [--size N] [--reps R] [--seed S]\n");
        return 2;
    }
    /* The sizes in the order launched: n first (the one captured and timed), then two
       others; the timed repetitions of n come last. */
    bad += run(n, seed, 0);
    bad += run(n / 2 + 1, seed + 1, 0);
    bad += run(1000003, seed + 2, 0);
    bad += run(n, seed + 3, reps);
    if (bad)
        std::fprintf(stderr, "check failed: %d outputs differ\n", bad);
    return bad ? 1 : 0;
}
