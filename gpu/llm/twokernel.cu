// Two kernels on one stream for the llm-optimize dominance check, both over
// 16 Mi elements and uncoalesced (neighbouring threads 4099 elements apart):
// `gather` reads two arrays and writes a third, about twice the traffic of
// `scale_rows` (one array in place), so it dominates the critical path.
// Making `gather` coalesced cuts its traffic about eightfold and makes
// `scale_rows` the dominant kernel.
#include "rpl_harness.h"

#include <cmath>
#include <vector>

__global__ void gather(size_t n, const float *__restrict__ x, const float *__restrict__ w,
                       float *__restrict__ y)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    i = (i * 4099) & (n - 1); /* a permutation of 0..n-1 for a power-of-two n */
    y[i] = 3.0f * x[i] + w[i];
}

__global__ void scale_rows(size_t n, float s, float *__restrict__ z)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    i = (i * 4099) & (n - 1);
    z[i] = s * z[i];
}

int main(int argc, char **argv)
{
    rpl_options o = rpl_options_parse(argc, argv);
    const size_t n = (size_t)1 << 24, m = n;
    const int block = 256;
    std::vector<float> hx(n), hw(n), hz(m), y(n), z(m);

    rpl_fill_uniform(hx.data(), n, o.seed, -1.0f, 1.0f);
    rpl_fill_uniform(hw.data(), n, o.seed + 2, -1.0f, 1.0f);
    rpl_fill_uniform(hz.data(), m, o.seed + 1, -1.0f, 1.0f);
    float *dx = rpl_malloc<float>(n), *dw = rpl_malloc<float>(n), *dy = rpl_malloc<float>(n);
    float *dz = rpl_malloc<float>(m);
    rpl_memcpy_h2d(dx, hx.data(), n);
    rpl_memcpy_h2d(dw, hw.data(), n);
    rpl_memcpy_h2d(dz, hz.data(), m);
    rpl_stream_t s = rpl_stream_create();
    for (int r = 0; r < o.reps; r++) { /* z halves every time: exact in binary */
        RPL_LAUNCH(gather, (unsigned)(n / block), block, 0, s, n, dx, dw, dy);
        RPL_LAUNCH(scale_rows, (unsigned)(m / block), block, 0, s, m, 0.5f, dz);
    }
    rpl_stream_sync(s);
    rpl_memcpy_d2h(y.data(), dy, n);
    rpl_memcpy_d2h(z.data(), dz, m);
    std::vector<float> wy(n), wz(m);
    for (size_t i = 0; i < n; i++)
        wy[i] = 3.0f * hx[i] + hw[i];
    for (size_t i = 0; i < m; i++)
        wz[i] = std::ldexp(hz[i], -o.reps);
    size_t bad = rpl_check_close("gather", y.data(), wy.data(), n, 1e-6f, 1e-6f) +
                 rpl_check_close("scale_rows", z.data(), wz.data(), m, 1e-6f, 1e-6f);
    std::printf("twokernel: %s\n", bad ? "FAILED" : "ok");
    rpl_stream_destroy(s);
    rpl_free(dx);
    rpl_free(dw);
    rpl_free(dy);
    rpl_free(dz);
    return bad ? 1 : 0;
}
