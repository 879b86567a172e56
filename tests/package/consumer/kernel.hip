// The consumer's kernel test: y = 3 x.  CONSUMER_HEAVY (kernel_heavy.hip)
// routes the values through a 32 KiB shared-memory buffer.
#include "rpl_harness.h"

#include <vector>

__global__ void scale(const float *__restrict__ x, float *__restrict__ y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
#ifdef CONSUMER_HEAVY
    __shared__ float stage[8192];
    for (unsigned k = threadIdx.x; k < 8192; k += blockDim.x)
        stage[k] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n)
        y[i] = 3.0f * stage[threadIdx.x];
#else
    if (i < n)
        y[i] = 3.0f * x[i];
#endif
}

int main(int argc, char **argv)
{
    rpl_options o = rpl_options_parse(argc, argv);
    const size_t n = o.size ? o.size : (size_t)1 << 20;
    std::vector<float> hx(n), out(n), want(n);

    rpl_fill_uniform(hx.data(), n, o.seed, -1.0f, 1.0f);
    float *x = rpl_malloc<float>(n), *y = rpl_malloc<float>(n);
    rpl_memcpy_h2d(x, hx.data(), n);
    for (int r = 0; r < o.reps; r++)
        RPL_LAUNCH(scale, (unsigned)((n + 255) / 256), 256, 0, 0, x, y, n);
    rpl_sync();
    rpl_memcpy_d2h(out.data(), y, n);
    for (size_t i = 0; i < n; i++)
        want[i] = 3.0f * hx[i];
    size_t bad = rpl_check_close("scale", out.data(), want.data(), n, 0.0f, 0.0f);
    rpl_free(x);
    rpl_free(y);
    return bad ? 1 : 0;
}
