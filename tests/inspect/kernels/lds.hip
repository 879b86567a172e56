// LDS use from 1 KiB to 64 KiB with different workgroup sizes.
#include <hip/hip_runtime.h>

template <int FLOATS, int BLOCK>
__device__ void stage(float *a)
{
    __shared__ float tile[FLOATS];
    for (int i = threadIdx.x; i < FLOATS; i += BLOCK)
        tile[i] = a[i];
    __syncthreads();
    a[threadIdx.x] = tile[(FLOATS - 1 - threadIdx.x) % FLOATS];
}

__global__ void __launch_bounds__(256) lds_1k_256(float *a) { stage<256, 256>(a); }
__global__ void __launch_bounds__(64) lds_16k_64(float *a) { stage<4096, 64>(a); }
__global__ void __launch_bounds__(128) lds_32k_128(float *a) { stage<8192, 128>(a); }
__global__ void __launch_bounds__(256) lds_48k_256(float *a) { stage<12288, 256>(a); }
__global__ void __launch_bounds__(1024) lds_64k_1024(float *a) { stage<16384, 1024>(a); }

// Dynamic LDS: the code object records none.
extern __shared__ float dynamic_tile[];
__global__ void lds_dynamic(float *a)
{
    dynamic_tile[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = dynamic_tile[threadIdx.x ^ 1];
}
