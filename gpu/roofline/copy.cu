// Roofline check kernel: a copy of 2^24 doubles (128 MiB per array), the
// vecCopy of rocprofiler-compute's tests at 16x the size, 5 launches,
// result checked.  Analytic counts per launch: no floating-point work
// (FLOPs = 0); DRAM bytes at least 8n read and 8n written.
#include <vector>

#include "../cupti/common.cuh"

__global__ void rl_copy(int n, const double *src, double *dst)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i];
}

int main()
{
    const int n = 1 << 24, runs = 5;
    const size_t bytes = (size_t)n * sizeof(double);
    std::vector<double> hs(n), out(n);
    double *src, *dst;

    for (int i = 0; i < n; i++)
        hs[i] = (double)i * 0.25;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaMemcpy(src, hs.data(), bytes, cudaMemcpyHostToDevice));
    for (int r = 0; r < runs; r++) {
        CHECK(cudaMemset(dst, 0, bytes));
        rl_copy<<<n / 256, 256>>>(n, src, dst);
        CHECK_LAUNCH();
        CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaMemcpy(out.data(), dst, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i += 4099)
        if (out[i] != hs[i])
            fail("copy result");
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    std::printf("rl_copy: n=%d runs=%d ok\n", n, runs);
    return 0;
}
