// Host<->device copies: H2D from pinned memory, a memset, D2D, a kernel
// that scales, and D2H back; the result is checked on the host.
#include <cstring>

#include "common.cuh"
#include "mem_kernels.cuh"

int main()
{
    const int n = 1 << 24, rounds = 3;
    const size_t bytes = n * sizeof(float);
    float *h_in, *h_out, *d_a, *d_b;

    CHECK(cudaMallocHost(&h_in, bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    for (int i = 0; i < n; i++)
        h_in[i] = (float)(((long long)i * 7919) % 10007) - 5000.0f;
    for (int r = 0; r < rounds; r++) {
        std::memset(h_out, 0xff, bytes);
        CHECK(cudaMemcpy(d_a, h_in, bytes, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(d_b, 0, bytes));
        CHECK(cudaMemcpy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice));
        scale<<<(n + 255) / 256, 256>>>(d_b, n, 3.0f);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(h_out, d_b, bytes, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            if (h_out[i] != 3.0f * h_in[i])
                fail("copy chain gave a wrong value");
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    std::printf("copies: ok (%d rounds of %zu bytes)\n", rounds, bytes);
    return 0;
}
