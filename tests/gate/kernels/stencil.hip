// The static gate's test kernel.  -DGATE_VARIANT=1 builds a variant with a
// four times larger LDS tile and many more live values per thread (more
// VGPRs), which the gate must reject against the baseline of the plain build.
#include <hip/hip_runtime.h>

#ifndef GATE_VARIANT
#define GATE_VARIANT 0
#endif

#define TILE (GATE_VARIANT ? 4096 : 1024)
#define LIVE (GATE_VARIANT ? 48 : 4)

__global__ void __launch_bounds__(256) stencil(const float *in, float *out, int n)
{
    __shared__ float tile[TILE];
    float acc[LIVE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    for (int k = threadIdx.x; k < TILE; k += blockDim.x)
        tile[k] = in[(blockIdx.x * TILE + k) % n];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < LIVE; k++)
        acc[k] = in[(i * LIVE + k) % n] * tile[(threadIdx.x + k) % TILE];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < LIVE; k++)
        s += acc[k] * acc[(k * 7 + 3) % LIVE];
    if (i < n)
        out[i] = s;
}
