// The kernel the loop tests work on: two kernels, `scale` and `shift`.
#include <hip/hip_runtime.h>

__global__ void scale(float *out, const float *in, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[i];
}

__global__ void shift(float *out, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += b;
}

int main()
{
    return 0;
}
