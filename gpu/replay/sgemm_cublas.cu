// sgemm_cublas: a plain application whose only GPU work is cublasSgemm, a
// vendor kernel without source.  C = A * B (column-major, n x n), beta 0, so
// every call sees the same inputs; a sample of C is checked on the host.
//
//   sgemm_cublas [--reps N] [--size N]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                      \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)
#define CHECK_BLAS(call)                                                                           \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            std::fprintf(stderr, "%s: status %d\n", #call, (int)s_);                             \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    int reps = 60, n = 2048;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--reps") == 0)
            reps = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--size") == 0)
            n = std::atoi(argv[i + 1]);
    }
    const size_t nn = (size_t)n * n;
    std::vector<float> a(nn), b(nn), c(nn);
    uint64_t s = 7;
    for (size_t i = 0; i < nn; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        a[i] = (float)((s >> 40) % 2001) / 1000.0f - 1.0f;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (float)((s >> 40) % 2001) / 1000.0f - 1.0f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, nn * sizeof(float)));
    CHECK(cudaMalloc(&db, nn * sizeof(float)));
    CHECK(cudaMalloc(&dc, nn * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    const float alpha = 1.0f, beta = 0.0f;
    for (int r = 0; r < reps; r++)
        CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, da, n, db, n, &beta,
                               dc, n));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c.data(), dc, nn * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int k = 0; k < 4096; k++) {
        int i = (int)((k * 2654435761u) % (unsigned)n), j = (int)((k * 40503u + 17) % (unsigned)n);
        double want = 0.0;
        for (int l = 0; l < n; l++)
            want += (double)a[(size_t)l * n + i] * b[(size_t)j * n + l];
        double got = c[(size_t)j * n + i];
        bad += std::fabs(got - want) > 1e-3 * (1.0 + std::fabs(want));
    }
    std::printf("sgemm_cublas: n=%d, %d calls, %zu of 4096 sampled values wrong\n", n, reps, bad);
    CHECK_BLAS(cublasDestroy(h));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    return bad ? 1 : 0;
}
