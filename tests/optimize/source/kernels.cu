// CUDA fixture for the kernel-source tests: CUDA spellings of what kernels.hip covers.
#include <cuda_runtime.h>

#define WARP 32

__device__ float warp_sum(float v)
{
    for (int o = WARP / 2; o > 0; o /= 2) // a loop of a helper, not of a kernel
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void __launch_bounds__(128) row_sum(const float *__restrict__ in,
                                                         float *__restrict__ out, int cols)
{
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) // loop 0: unroll
        acc += in[blockIdx.x * cols + c];
    acc = warp_sum(acc);
    if ((threadIdx.x & (WARP - 1)) == 0)
        atomicAdd(&out[blockIdx.x], acc);
}

template <typename T, int ITEMS>
__global__ void gather(T *dst, const T *src, const int *idx)
{
#pragma unroll
    for (int k = 0; k < ITEMS; k++) // loop 0: full unroll pragma
        dst[threadIdx.x * ITEMS + k] = src[idx[k]];
}

template __global__ void gather<float, 4>(float *, const float *, const int *);
template __global__ void gather<double, 2>(double *, const double *, const int *);

extern __shared__ float stage[];

namespace ops {
__global__ void histogram(unsigned int *bins, const unsigned char *data, size_t n)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], 1u); // loop 0: atomic
}

__global__ void staged(float4 *out, const float4 *in, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) { // loop 0: dynamic shared, barrier
        stage[threadIdx.x] = in[i].x;
        __syncthreads();
        out[i].y = stage[(threadIdx.x + 1) % blockDim.x];
    }
}
} // namespace ops

int main()
{
    float *in = nullptr, *out = nullptr;
    cudaMalloc(&in, 1024 * sizeof(float));
    cudaMalloc(&out, 8 * sizeof(float));
    row_sum<<<8, 128>>>(in, out, 128);
    cudaDeviceSynchronize();
    cudaFree(in);
    cudaFree(out);
    return 0;
}
