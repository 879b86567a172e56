// Row-wise softmax, one block per row: max and sum through shared-memory
// tree reductions (no warp shuffles, so the wave size does not matter).
#include "rpl_harness.h"

#include <vector>

#define SOFTMAX_BLOCK 256

__global__ void __launch_bounds__(SOFTMAX_BLOCK)
    softmax_rows(const float *__restrict__ in, float *__restrict__ out, int cols)
{
    __shared__ float red[SOFTMAX_BLOCK];
    const float *row = in + (size_t)blockIdx.x * cols;
    float *dst = out + (size_t)blockIdx.x * cols;
    float m = -INFINITY, sum = 0.0f;

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, row[c]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + w]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        sum += expf(row[c] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            red[threadIdx.x] += red[threadIdx.x + w];
        __syncthreads();
    }
    sum = red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        dst[c] = expf(row[c] - m) / sum;
}

int main(int argc, char **argv)
{
    rpl_options o = rpl_options_parse(argc, argv);
    const int rows = o.size ? (int)o.size : 8192, cols = 1024;
    const size_t n = (size_t)rows * cols;
    std::vector<float> h(n), out(n), want(n);

    rpl_fill_uniform(h.data(), n, o.seed, -8.0f, 8.0f);
    float *in = rpl_malloc<float>(n), *dout = rpl_malloc<float>(n);
    rpl_memcpy_h2d(in, h.data(), n);
    rpl_stream_t s = rpl_stream_create();
    rpl_timer t = rpl_timer_create(s);
    rpl_timer_start(&t);
    for (int r = 0; r < o.reps; r++)
        RPL_LAUNCH(softmax_rows, rows, SOFTMAX_BLOCK, 0, s, in, dout, cols);
    float ms = rpl_timer_stop(&t, o.reps);
    rpl_memcpy_d2h(out.data(), dout, n);
    for (int r = 0; r < rows; r++) {
        const float *row = &h[(size_t)r * cols];
        double m = row[0], sum = 0.0;
        for (int c = 1; c < cols; c++)
            m = row[c] > m ? row[c] : m;
        for (int c = 0; c < cols; c++)
            sum += std::exp(row[c] - m);
        for (int c = 0; c < cols; c++)
            want[(size_t)r * cols + c] = (float)(std::exp(row[c] - m) / sum);
    }
    std::printf("softmax: %dx%d %.4f ms/launch\n", rows, cols, ms);
    size_t bad = rpl_check_close("softmax", out.data(), want.data(), n, 1e-4f, 1e-7f);
    rpl_timer_destroy(&t);
    rpl_stream_destroy(s);
    rpl_free(in);
    rpl_free(dout);
    return bad ? 1 : 0;
}
