// The autotune tests' compile-time kernel: THREADS (its launch bound) and
// LDS_FLOATS (its LDS array) come from -D.  128 KiB of LDS does not compile
// for gfx90a; a block larger than THREADS cannot launch.
#include <hip/hip_runtime.h>

__global__ void __launch_bounds__(THREADS) tile_lds(float *out)
{
    __shared__ float buf[LDS_FLOATS];
    buf[threadIdx.x % LDS_FLOATS] = (float)threadIdx.x;
    __syncthreads();
    out[blockIdx.x * THREADS + threadIdx.x] = buf[(threadIdx.x + 1) % LDS_FLOATS];
}
