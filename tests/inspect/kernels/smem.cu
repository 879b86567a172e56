// Static shared memory from 1 KiB to 48 KiB, and dynamic shared memory.
template <int FLOATS, int BLOCK>
__device__ void stage(float *a)
{
    __shared__ float tile[FLOATS];
    for (int i = threadIdx.x; i < FLOATS; i += BLOCK)
        tile[i] = a[i];
    __syncthreads();
    a[threadIdx.x] = tile[(FLOATS - 1 - threadIdx.x) % FLOATS];
}

__global__ void __launch_bounds__(256) smem_1k_256(float *a) { stage<256, 256>(a); }
__global__ void __launch_bounds__(64) smem_16k_64(float *a) { stage<4096, 64>(a); }
__global__ void __launch_bounds__(128) smem_32k_128(float *a) { stage<8192, 128>(a); }
__global__ void __launch_bounds__(256) smem_48k_256(float *a) { stage<12288, 256>(a); }

extern __shared__ float dynamic_tile[];
__global__ void smem_dynamic(float *a)
{
    dynamic_tile[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = dynamic_tile[threadIdx.x ^ 1];
}
