// saxpy: y = a * x + y, one element per thread; memory-bound.
#include "rpl_harness.h"

#include <vector>

__global__ void saxpy(size_t n, float a, const float *__restrict__ x, float *__restrict__ y)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
#ifdef RPL_SAXPY_UNCOALESCED
    /* A permutation of 0..n-1 when n is a power of two (4099 is odd). */
    i = (i * 4099) & (n - 1);
#endif
    y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    rpl_options o = rpl_options_parse(argc, argv);
    const size_t n = o.size ? o.size : (size_t)1 << 24;
    const float a = 2.5f;
    const int block = 256;
    const unsigned grid = (unsigned)((n + block - 1) / block);
    std::vector<float> hx(n), hy(n), out(n), want(n);

    rpl_fill_uniform(hx.data(), n, o.seed, -1.0f, 1.0f);
    rpl_fill_uniform(hy.data(), n, o.seed + 1, -1.0f, 1.0f);
    float *x = rpl_malloc<float>(n), *y = rpl_malloc<float>(n);
    rpl_memcpy_h2d(x, hx.data(), n);

    // Each timed launch starts from the same y, so the last result is checkable.
    rpl_stream_t s = rpl_stream_create();
    rpl_timer t = rpl_timer_create(s);
    float ms = 0.0f;
    for (int r = 0; r < o.reps; r++) {
        rpl_memcpy_h2d(y, hy.data(), n);
        rpl_timer_start(&t);
        RPL_LAUNCH(saxpy, grid, block, 0, s, n, a, x, y);
        ms += rpl_timer_stop(&t, 1);
    }
    rpl_memcpy_d2h(out.data(), y, n);
    for (size_t i = 0; i < n; i++)
        want[i] = a * hx[i] + hy[i];
    std::printf("saxpy: n=%zu %.4f ms/launch %.1f GB/s\n", n, ms / o.reps,
                3.0 * n * sizeof(float) / (ms / o.reps * 1e6));
    size_t bad = rpl_check_close("saxpy", out.data(), want.data(), n, 1e-6f, 1e-6f);
    rpl_timer_destroy(&t);
    rpl_stream_destroy(s);
    rpl_free(x);
    rpl_free(y);
    return bad ? 1 : 0;
}
