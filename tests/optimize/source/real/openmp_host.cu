// A source of a build that uses OpenMP on the host (nvcc -Xcompiler -fopenmp):
// gcc finds its own omp.h, libclang must be given it.
#include <omp.h>

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

void scale_on_host(float *x, float a, int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        x[i] *= a;
    (void)omp_get_max_threads();
}
