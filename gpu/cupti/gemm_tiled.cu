// Shared-memory tiled SGEMM, C = A * B with 32x32 tiles (static shared
// memory 2 * 32 * 32 * 4 = 8 KiB per block).  Checked against a double
// precision CPU product on sampled entries.  Five runs.  The order n is the
// optional argument (a multiple of 32, default 2048).
#include <cmath>
#include <cstdlib>
#include <vector>

#include "common.cuh"

#define TILE 32

__global__ void gemm_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;

    for (int t = 0; t < n; t += TILE) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 2048, runs = 5;
    if (n < TILE || n > 16384 || n % TILE != 0)
        fail("the order must be a multiple of 32 in 32..16384");
    const size_t bytes = (size_t)n * n * sizeof(float);
    std::vector<float> hA((size_t)n * n), hB((size_t)n * n), hC((size_t)n * n);
    float *A, *B, *C;
    unsigned s = 12345;

    for (auto &v : hA)
        v = (float)((s = s * 1103515245u + 12345u) >> 9) / 8388608.0f - 1.0f;
    for (auto &v : hB)
        v = (float)((s = s * 1103515245u + 12345u) >> 9) / 8388608.0f - 1.0f;
    CHECK(cudaMalloc(&A, bytes));
    CHECK(cudaMalloc(&B, bytes));
    CHECK(cudaMalloc(&C, bytes));
    CHECK(cudaMemcpy(A, hA.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), bytes, cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid(n / TILE, n / TILE);
    for (int r = 0; r < runs; r++) {
        CHECK(cudaMemset(C, 0xff, bytes)); // poison
        gemm_tiled<<<grid, block>>>(A, B, C, n);
        CHECK_LAUNCH();
        CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaMemcpy(hC.data(), C, bytes, cudaMemcpyDeviceToHost));
    double err = 0, ref_norm = 0;
    for (int i = 0; i < n; i += 61) {
        for (int j = 0; j < n; j += 67) {
            double ref = 0;
            for (int k = 0; k < n; k++)
                ref += (double)hA[(size_t)i * n + k] * hB[(size_t)k * n + j];
            double d = hC[(size_t)i * n + j] - ref;
            err += d * d;
            ref_norm += ref * ref;
        }
    }
    double rel = std::sqrt(err / ref_norm);
    if (!(rel < 1e-5))
        fail("gemm result differs from the CPU product");
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
    std::printf("gemm_tiled: ok (n=%d, %d runs, rel err %.2e)\n", n, runs, rel);
    return 0;
}
