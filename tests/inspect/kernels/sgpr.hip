// Uniform values kept in scalar registers.
#include <hip/hip_runtime.h>

struct coeffs {
    float c[48];
    int idx[16];
};

__global__ void __launch_bounds__(256) sgpr_uniform(float *out, const float *in, coeffs k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], s = 0.0f;
#pragma unroll
    for (int j = 0; j < 48; j++)
        s = s * x + k.c[j];
#pragma unroll
    for (int j = 0; j < 16; j++)
        s += in[(i + k.idx[j]) % n];
    out[i] = s;
}
