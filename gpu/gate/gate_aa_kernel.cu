// The gate's GPU proof: one compute-bound kernel launched LAUNCHES times in
// one process.  WORK scales the length of each thread's dependent FMA chain,
// so WORK 1.05 is a kernel that does 5 % more work (about 5 % slower).
//   usage: gate_aa_kernel WORK LAUNCHES
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "../cupti/common.cuh" // CHECK

__global__ void fma_chain(float *out, int iters, float a, float b)
{
    float x = (float)threadIdx.x * 1e-3f, y = (float)blockIdx.x * 1e-3f;
    for (int i = 0; i < iters; i++) {
        x = fmaf(x, a, b);
        y = fmaf(y, b, a);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s WORK LAUNCHES\n", argv[0]);
        return 2;
    }
    double work = std::atof(argv[1]);
    int launches = std::atoi(argv[2]);
    if (!(work > 0 && work < 10) || launches < 1 || launches > 100000) {
        std::fprintf(stderr, "%s: WORK in (0, 10), LAUNCHES in [1, 100000]\n", argv[0]);
        return 2;
    }
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int blocks = sms * 8, threads = 256, iters = (int)(4000 * work + 0.5);
    float *out;
    CHECK(cudaMalloc(&out, sizeof(float) * (size_t)blocks * threads));
    for (int i = 0; i < launches; i++) {
        fma_chain<<<blocks, threads>>>(out, iters, 0.999f, 0.001f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(out));
    return 0;
}
