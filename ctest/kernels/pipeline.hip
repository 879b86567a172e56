// Two-stream pipeline: the input is cut into chunks; each chunk is copied
// in, transformed and copied out on one of two streams, so one stream's
// copies overlap the other stream's kernel.
#include "rpl_harness.h"

#include <vector>

__global__ void transform_chunk(const float *__restrict__ in, float *__restrict__ out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i];
        out[i] = v * v + 0.5f * v + 1.0f;
    }
}

int main(int argc, char **argv)
{
    rpl_options o = rpl_options_parse(argc, argv);
    const size_t chunk = o.size ? o.size : (size_t)1 << 22;
    const int nchunks = 8, block = 256;
    const size_t n = chunk * nchunks;
    const unsigned grid = (unsigned)((chunk + block - 1) / block);
    float *hin = rpl_malloc_host<float>(n), *hout = rpl_malloc_host<float>(n);
    std::vector<float> want(n);
    rpl_stream_t s[2] = {rpl_stream_create(), rpl_stream_create()};
    float *din[2], *dout[2];

    rpl_fill_uniform(hin, n, o.seed, -2.0f, 2.0f);
    for (int k = 0; k < 2; k++) {
        din[k] = rpl_malloc<float>(chunk);
        dout[k] = rpl_malloc<float>(chunk);
    }
    rpl_event_t start = rpl_event_create(), stop = rpl_event_create();
    rpl_event_record(start, s[0]);
    for (int r = 0; r < o.reps; r++)
        for (int c = 0; c < nchunks; c++) {
            int k = c % 2;
            rpl_memcpy_h2d_async(din[k], hin + (size_t)c * chunk, chunk, s[k]);
            RPL_LAUNCH(transform_chunk, grid, block, 0, s[k], din[k], dout[k], chunk);
            rpl_memcpy_d2h_async(hout + (size_t)c * chunk, dout[k], chunk, s[k]);
        }
    rpl_stream_sync(s[1]);
    rpl_event_record(stop, s[0]);
    rpl_event_sync(stop);
    float ms = rpl_event_elapsed_ms(start, stop) / o.reps;
    for (size_t i = 0; i < n; i++)
        want[i] = hin[i] * hin[i] + 0.5f * hin[i] + 1.0f;
    std::printf("pipeline: %d chunks of %zu, %.4f ms/pass\n", nchunks, chunk, ms);
    size_t bad = rpl_check_close("pipeline", hout, want.data(), n, 1e-6f, 1e-6f);
    rpl_event_destroy(start);
    rpl_event_destroy(stop);
    for (int k = 0; k < 2; k++) {
        rpl_free(din[k]);
        rpl_free(dout[k]);
        rpl_stream_destroy(s[k]);
    }
    rpl_free_host(hin);
    rpl_free_host(hout);
    return bad ? 1 : 0;
}
