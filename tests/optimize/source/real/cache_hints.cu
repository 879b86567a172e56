// Loads and stores with a cache hint (CUDA guide, "Load Functions Using Cache
// Hints" and "Store Functions Using Cache Hints"), as llm.c's layernorm
// kernels use them: clang's CUDA wrapper does not declare them.
#include <cuda_runtime.h>

__global__ void streamed(const float *__restrict__ x, float *__restrict__ y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        __stcs(y + i, 2.0f * __ldcs(x + i));
}

__global__ void hinted(const float4 *a, float4 *b, const int *k, int *m, const double2 *d,
                       double2 *e)
{
    int i = threadIdx.x;
    float4 v = __ldcg(a + i);
    for (int j = 0; j < 4; j++)
        m[i * 4 + j] = __ldca(k + j) + __ldlu(k + j + 4) + __ldcv(k + j + 8);
    __stcg(b + i, v);
    __stwb(b + i + 32, __ldcs(a + i + 32));
    __stwt(e + i, __ldcg(d + i));
}
