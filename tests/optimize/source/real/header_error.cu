// Errors in a header and in another kernel; `clean` parsed completely.
#include "broken/lib.cuh"

template <class T>
__global__ void clean(T *x, int n)
{
    T acc = 0;
    for (int i = 0; i < n; i++)
        acc += scale(x[i]);
    x[0] = acc;
}

__global__ void plain(float *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] *= 2.0f;
}

__global__ void broken_kernel(float *x)
{
    x[0] = not_declared_anywhere;
}
