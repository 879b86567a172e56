// A kernel in CUB's versioned namespace, as CCCL's own kernels are
// (cub/device/dispatch/kernels/*.cuh): nvcc names the namespace after
// __CUDA_ARCH_LIST__ (cub::CUB_300001_SM_900 for sm_90, SM_800_900 for two).
#include <cub/util_namespace.cuh>

CUB_NAMESPACE_BEGIN
__global__ void versioned_fill(int *out, int value)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}
CUB_NAMESPACE_END
