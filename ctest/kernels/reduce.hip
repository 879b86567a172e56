// Block reduction: each block sums 2 * blockDim elements into one partial
// sum through a shared-memory tree; the host adds the partial sums.
#include "rpl_harness.h"

#include <vector>

#define REDUCE_BLOCK 256

__global__ void __launch_bounds__(REDUCE_BLOCK)
    block_reduce(const float *__restrict__ in, float *__restrict__ partial, size_t n)
{
    __shared__ float red[REDUCE_BLOCK];
    size_t i = (size_t)blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = 0.0f;

    if (i < n)
        v = in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    red[threadIdx.x] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            red[threadIdx.x] += red[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = red[0];
}

int main(int argc, char **argv)
{
    rpl_options o = rpl_options_parse(argc, argv);
    const size_t n = o.size ? o.size : (size_t)1 << 24;
    const unsigned grid = (unsigned)((n + 2 * REDUCE_BLOCK - 1) / (2 * REDUCE_BLOCK));
    std::vector<float> h(n), parts(grid), want(grid);

    rpl_fill_uniform(h.data(), n, o.seed, 0.0f, 1.0f);
    float *in = rpl_malloc<float>(n), *partial = rpl_malloc<float>(grid);
    rpl_memcpy_h2d(in, h.data(), n);
    rpl_stream_t s = rpl_stream_create();
    rpl_timer t = rpl_timer_create(s);
    rpl_timer_start(&t);
    for (int r = 0; r < o.reps; r++)
        RPL_LAUNCH(block_reduce, grid, REDUCE_BLOCK, 0, s, in, partial, n);
    float ms = rpl_timer_stop(&t, o.reps);
    rpl_memcpy_d2h(parts.data(), partial, grid);
    for (unsigned b = 0; b < grid; b++) {
        double sum = 0.0;
        for (size_t i = (size_t)b * 2 * REDUCE_BLOCK;
             i < n && i < (size_t)(b + 1) * 2 * REDUCE_BLOCK; i++)
            sum += h[i];
        want[b] = (float)sum;
    }
    std::printf("reduce: n=%zu %.4f ms/launch %.1f GB/s\n", n, ms, n * sizeof(float) / (ms * 1e6));
    size_t bad = rpl_check_close("reduce", parts.data(), want.data(), grid, 1e-5f, 1e-4f);
    rpl_timer_destroy(&t);
    rpl_stream_destroy(s);
    rpl_free(in);
    rpl_free(partial);
    return bad ? 1 : 0;
}
