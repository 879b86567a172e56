// Roofline check kernel: saxpy over 2^24 floats (64 MiB per array, beyond
// the 50-60 MB L2), 5 launches, result checked.  Analytic counts per launch:
// FFMA thread instructions = n, no FADD/FMUL, so FLOPs = 2n = 33,554,432;
// DRAM bytes at least 8n read and 4n written (writes can stay in L2).
#include <vector>

#include "../cupti/common.cuh"

__global__ void rl_saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main()
{
    const int n = 1 << 24, runs = 5;
    const size_t bytes = (size_t)n * sizeof(float);
    std::vector<float> hx(n), hy(n), out(n);
    float *x, *y;

    for (int i = 0; i < n; i++) {
        hx[i] = (float)(i % 1000) * 0.5f;
        hy[i] = 1.0f;
    }
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&y, bytes));
    CHECK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
    for (int r = 0; r < runs; r++) {
        CHECK(cudaMemcpy(y, hy.data(), bytes, cudaMemcpyHostToDevice));
        rl_saxpy<<<n / 256, 256>>>(n, 2.0f, x, y);
        CHECK_LAUNCH();
        CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaMemcpy(out.data(), y, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i += 4099)
        if (out[i] != 2.0f * hx[i] + 1.0f)
            fail("saxpy result");
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    std::printf("rl_saxpy: n=%d runs=%d ok\n", n, runs);
    return 0;
}
