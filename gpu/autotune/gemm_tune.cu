// The tunable SGEMM of gpu/autotune/check.sh: C = A * B (row-major, square n),
// block tiling in shared memory with register tiles, every size a compile-time
// parameter (-D): BM x BN is the C tile of a block, BK the K step of the
// shared-memory tiles, TM x TN the C tile of one thread, so a block has
// (BM/TM) * (BN/TN) threads.  gpu/autotune/gemm_space.json lists the legal
// combinations.  Every run checks 64 sampled entries of C against a double
// precision CPU product and exits 1 when one differs.
//
//   gemm_tune [n] [launches]     n: a multiple of BM and BN (default 2048),
//                                launches of the kernel (default 11)
#include <cmath>
#include <cstdlib>
#include <vector>

#include "../cupti/common.cuh"

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(TM) || !defined(TN)
#error "build with -DBM= -DBN= -DBK= -DTM= -DTN="
#endif
#define THREADS ((BM / TM) * (BN / TN))
static_assert(BM % TM == 0 && BN % TN == 0, "a thread tile divides the block tile");
static_assert(THREADS >= 32 && THREADS <= 1024, "32 to 1024 threads per block");

__global__ void __launch_bounds__(THREADS)
    gemm_tune(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
              int n)
{
    // A's tile is stored transposed, so a thread reads its TM values of one k in a row.
    __shared__ float as[BK][BM];
    __shared__ float bs[BK][BN];
    const int tid = threadIdx.x, tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN];

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < n; k0 += BK) {
        for (int e = tid; e < BM * BK; e += THREADS) {
            int r = e / BK, k = e % BK;
            as[k][r] = a[(size_t)(row0 + r) * n + k0 + k];
        }
        for (int e = tid; e < BK * BN; e += THREADS) {
            int k = e / BN, col = e % BN;
            bs[k][col] = b[(size_t)(k0 + k) * n + col0 + col];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float ra[TM], rb[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                ra[i] = as[k][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; j++)
                rb[j] = bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            c[(size_t)(row0 + ty * TM + i) * n + col0 + tx * TN + j] = acc[i][j];
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
    const int launches = argc > 2 ? std::atoi(argv[2]) : 11;
    if (n < BM || n < BN || n % BM != 0 || n % BN != 0 || n % BK != 0 || n > 16384)
        fail("n must be a multiple of BM, BN and BK, at most 16384");
    if (launches < 1)
        fail("launches must be at least 1");
    const size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    std::vector<float> ha(nn), hb(nn), hc(nn);
    unsigned s = 12345;
    for (auto &v : ha)
        v = (float)((s = s * 1103515245u + 12345u) >> 9) / 8388608.0f - 1.0f;
    for (auto &v : hb)
        v = (float)((s = s * 1103515245u + 12345u) >> 9) / 8388608.0f - 1.0f;
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&c, bytes));
    CHECK(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(c, 0xff, bytes)); // poison: a config that skips outputs fails the check
    dim3 grid(n / BN, n / BM);
    for (int r = 0; r < launches; r++) {
        gemm_tune<<<grid, THREADS>>>(a, b, c, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hc.data(), c, bytes, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int t = 0; t < 64; t++) {
        size_t i = (size_t)(t * 2654435761u) % (size_t)n, j = (size_t)(t * 40503u + 7) % (size_t)n;
        double ref = 0, mag = 0;
        for (int k = 0; k < n; k++) {
            ref += (double)ha[i * n + k] * hb[(size_t)k * n + j];
            mag += std::fabs((double)ha[i * n + k] * hb[(size_t)k * n + j]);
        }
        double err = std::fabs(hc[i * n + j] - ref) / (mag > 0 ? mag : 1);
        if (!(err <= worst))
            worst = err; // NaN (poison) propagates as a failure
    }
    if (!(worst < 1e-5))
        fail("gemm_tune: C differs from the CPU product");
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    std::printf("gemm_tune BM=%d BN=%d BK=%d TM=%d TN=%d: n=%d, %d launches, ok (rel err %.1e)\n",
                BM, BN, BK, TM, TN, n, launches, worst);
    return 0;
}
