// Candidate code objects for the saxpy of ctest/kernels/saxpy.hip: the same
// signature (so the same mangled name and parameter layout) with a changed
// body.  Built as cubins, each replayed in place of the captured one:
//   nvcc -cubin -arch=sm_90 -o saxpy_ok.cubin saxpy_variants.cu
//   nvcc -cubin -arch=sm_90 -DRPL_VARIANT_WRONG -o saxpy_wrong.cubin saxpy_variants.cu
// The correct one walks each block backwards and loads through the read-only
// cache: the same values in other instructions.  The wrong one leaves the
// last element of y unwritten.
#include <cstddef>

__global__ void saxpy(size_t n, float a, const float *__restrict__ x, float *__restrict__ y)
{
#ifdef RPL_VARIANT_WRONG
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 >= n)
        return;
    y[i] = a * x[i] + y[i];
#else
    size_t i = (size_t)blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
    if (i >= n)
        return;
    y[i] = fmaf(a, __ldg(&x[i]), y[i]);
#endif
}
