// Roofline reference kernels for the counter checks: saxpy (y = a*x + y,
// one FFMA per element: 2 FLOPs, 8 bytes read, 4 written) and a plain copy
// (4 bytes read, 4 written, no floating-point work) over 2^25 floats
// (128 MiB per array, far over the L2), 3 runs each, results checked.
// Analytic counts per launch: FFMA thread instructions = n; FADD = FMUL = 0;
// DRAM bytes read = 8n (saxpy) / 4n (copy), written = 4n.
#include <vector>

#include "common.cuh"
#include "mem_kernels.cuh"

int main()
{
    const int n = 1 << 25, runs = 3;
    const size_t bytes = (size_t)n * sizeof(float);
    std::vector<float> hx(n), hy(n), out(n);
    float *x, *y, *z;

    for (int i = 0; i < n; i++) {
        hx[i] = (float)((i * 37) % 1013) * 0.25f;
        hy[i] = (float)((i * 11) % 977) - 400.0f;
    }
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&y, bytes));
    CHECK(cudaMalloc(&z, bytes));
    CHECK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
    for (int r = 0; r < runs; r++) {
        CHECK(cudaMemcpy(y, hy.data(), bytes, cudaMemcpyHostToDevice));
        saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
        CHECK_LAUNCH();
        copy<<<(n + 255) / 256, 256>>>(n, y, z);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(out.data(), z, bytes, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            if (out[i] != 2.0f * hx[i] + hy[i])
                fail("saxpy/copy gave a wrong value");
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(z));
    std::printf("saxpy_copy: ok (n=%d, %d runs)\n", n, runs);
    return 0;
}
