// Tiled GEMM, C = A * B (row-major, square), TILE x TILE shared-memory tiles.
#include "rpl_harness.h"

#include <vector>

#define TILE 16

__global__ void __launch_bounds__(TILE *TILE)
    gemm_tiled(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
               int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;

    for (int k0 = 0; k0 < n; k0 += TILE) {
        ta[threadIdx.y][threadIdx.x] =
            row < n && k0 + threadIdx.x < n ? a[(size_t)row * n + k0 + threadIdx.x] : 0.0f;
        tb[threadIdx.y][threadIdx.x] =
            col < n && k0 + threadIdx.y < n ? b[(size_t)(k0 + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[(size_t)row * n + col] = acc;
}

int main(int argc, char **argv)
{
    rpl_options o = rpl_options_parse(argc, argv);
    const int n = o.size ? (int)o.size : 1024;
    const size_t nn = (size_t)n * n;
    std::vector<float> ha(nn), hb(nn), out(nn);

    rpl_fill_uniform(ha.data(), nn, o.seed, -1.0f, 1.0f);
    rpl_fill_uniform(hb.data(), nn, o.seed + 1, -1.0f, 1.0f);
    float *a = rpl_malloc<float>(nn), *b = rpl_malloc<float>(nn), *c = rpl_malloc<float>(nn);
    rpl_memcpy_h2d(a, ha.data(), nn);
    rpl_memcpy_h2d(b, hb.data(), nn);
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    rpl_stream_t s = rpl_stream_create();
    rpl_timer t = rpl_timer_create(s);
    rpl_timer_start(&t);
    for (int r = 0; r < o.reps; r++)
        RPL_LAUNCH(gemm_tiled, grid, block, 0, s, a, b, c, n);
    float ms = rpl_timer_stop(&t, o.reps);
    rpl_memcpy_d2h(out.data(), c, nn);
    // The host reference for every 8th row keeps the check under a second.
    std::vector<float> got_rows, want_rows;
    for (int i = 0; i < n; i += 8) {
        std::vector<float> acc(n, 0.0f);
        for (int k = 0; k < n; k++) {
            float aik = ha[(size_t)i * n + k];
            for (int j = 0; j < n; j++)
                acc[j] += aik * hb[(size_t)k * n + j];
        }
        want_rows.insert(want_rows.end(), acc.begin(), acc.end());
        got_rows.insert(got_rows.end(), out.begin() + (size_t)i * n,
                        out.begin() + (size_t)(i + 1) * n);
    }
    std::printf("gemm: n=%d %.4f ms/launch %.1f GFLOP/s\n", n, ms, 2.0 * nn * n / (ms * 1e6));
    size_t bad =
        rpl_check_close("gemm", got_rows.data(), want_rows.data(), got_rows.size(), 1e-3f, 1e-3f);
    rpl_timer_destroy(&t);
    rpl_stream_destroy(s);
    rpl_free(a);
    rpl_free(b);
    rpl_free(c);
    return bad ? 1 : 0;
}
