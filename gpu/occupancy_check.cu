// Ground truth for `rocm-perf inspect` on an NVIDIA GPU: for several kernels
// and block sizes, print the CUDA runtime's cudaFuncGetAttributes and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor as JSON lines, plus one line
// of device properties.  gpu/occupancy_check.sh compares them with inspect.
//
// Kernels are extern "C" so their names match what inspect reads from the
// binary's .nv_fatbin without demangling.
#include <cstdio>
#include <cuda_runtime.h>

// accumulate<N>: the register-pressure function of the inspect tests.
#include "../tests/inspect/kernels/accumulate.h"

template <int FLOATS>
__device__ void stage(float *a)
{
    __shared__ float tile[FLOATS];
    for (int i = threadIdx.x; i < FLOATS; i += blockDim.x)
        tile[i] = a[i];
    __syncthreads();
    a[threadIdx.x] = tile[(FLOATS - 1 - threadIdx.x) % FLOATS];
}

extern "C" {
__global__ void occ_vector_add(float *c, const float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] += a[i];
}
__global__ void occ_regs_32(float *o, const float *i, int n) { accumulate<32>(o, i, n); }
__global__ void occ_regs_64(float *o, const float *i, int n) { accumulate<64>(o, i, n); }
__global__ void __launch_bounds__(256) occ_regs_128(float *o, const float *i, int n)
{
    accumulate<128>(o, i, n);
}
__global__ void occ_smem_4k(float *a) { stage<1024>(a); }
__global__ void occ_smem_20k(float *a) { stage<5120>(a); }
__global__ void occ_smem_48k(float *a) { stage<12288>(a); }
__global__ void __launch_bounds__(128) occ_stack(float *a, int k)
{
    float t[512];
    for (int i = 0; i < 512; i++)
        t[i] = a[i * k + threadIdx.x];
    a[threadIdx.x] = t[(threadIdx.x * k) % 512];
}
}

struct entry {
    const char *name;
    const void *fn;
};

static const entry kernels[] = {
    {"occ_vector_add", (const void *)occ_vector_add}, {"occ_regs_32", (const void *)occ_regs_32},
    {"occ_regs_64", (const void *)occ_regs_64},       {"occ_regs_128", (const void *)occ_regs_128},
    {"occ_smem_4k", (const void *)occ_smem_4k},       {"occ_smem_20k", (const void *)occ_smem_20k},
    {"occ_smem_48k", (const void *)occ_smem_48k},     {"occ_stack", (const void *)occ_stack},
};

static const int blocks[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "occupancy_check: %s: %s\n", #call, cudaGetErrorString(e_));           \
            return 3;                                                                              \
        }                                                                                          \
    } while (0)

int main()
{
    cudaDeviceProp p;
    int dev = 0, count = 0;

    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "occupancy_check: no CUDA device\n");
        return 77;
    }
    CHECK(cudaGetDeviceProperties(&p, dev));
    printf("{\"device\": \"%s\", \"cc\": %d, \"sms\": %d, \"regs_per_sm\": %d, "
           "\"regs_per_block\": %d, \"max_threads_per_sm\": %d, \"max_blocks_per_sm\": %d, "
           "\"smem_per_sm\": %zu, \"smem_per_block\": %zu, \"smem_per_block_optin\": %zu, "
           "\"reserved_smem_per_block\": %zu, \"warp_size\": %d}\n",
           p.name, p.major * 10 + p.minor, p.multiProcessorCount, p.regsPerMultiprocessor,
           p.regsPerBlock, p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor,
           p.sharedMemPerMultiprocessor, p.sharedMemPerBlock, p.sharedMemPerBlockOptin,
           p.reservedSharedMemPerBlock, p.warpSize);
    for (const entry &k : kernels) {
        cudaFuncAttributes a;

        CHECK(cudaFuncGetAttributes(&a, k.fn));
        for (int b : blocks) {
            int n = -1;

            if (b > a.maxThreadsPerBlock)
                continue;
            CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k.fn, b, 0));
            printf("{\"kernel\": \"%s\", \"block\": %d, \"blocks_per_sm\": %d, \"num_regs\": %d, "
                   "\"shared_size_bytes\": %zu, \"local_size_bytes\": %zu, "
                   "\"max_threads_per_block\": %d}\n",
                   k.name, b, n, a.numRegs, a.sharedSizeBytes, a.localSizeBytes,
                   a.maxThreadsPerBlock);
        }
    }
    return 0;
}
