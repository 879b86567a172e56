// Fixture for the kernel-source tests: kernels the optimizer must find exactly.
// A comment that mentions __global__ void fake(int *p) { and an unbalanced brace {
#include <hip/hip_runtime.h>

#define BLOCK 256
#define KERNEL_ATTRS __global__ __launch_bounds__(BLOCK)

/* "__global__ void in_a_comment() {}" must not count. */
static const char *braces = "}{ __global__ void in_a_string() { ";

__device__ float twice(float x)
{
    return 2.0f * x;
}

extern "C" __global__ void c_linkage(float *out, const float *__restrict__ in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = twice(in[i]);
}

extern "C" {
__global__ void c_block(int *p)
{
    p[threadIdx.x] = '}';
}
}

template <typename T, int N>
__global__ void __launch_bounds__(BLOCK, 2) templated(T *data, const T *src)
{
    for (int k = 0; k < N; k++)
        data[threadIdx.x * N + k] = src[k];
}

template __global__ void templated<float, 4>(float *, const float *);

namespace alpha {
__global__ void scale(float *v, float s)
{
    v[threadIdx.x] *= s;
}
} // namespace alpha

namespace beta {
__global__ void scale(double *v, double s)
{
    v[threadIdx.x] *= s;
}
} // namespace beta

KERNEL_ATTRS void via_macro(float *v)
{
    v[threadIdx.x] = 1.0f;
}

typedef void (*callback_t)(float *);

__global__ void odd_params(void (*fn)(int), float m[4][4], const int *const *pp, size_t n,
                           callback_t cb)
{
    (void)fn;
    (void)cb;
    m[threadIdx.x % 4][0] = (float)n + (float)pp[0][0];
}

__device__ void host_side_helper_not_a_kernel(float *v)
{
    v[0] = 0.0f;
}

#define DEFINE_FILL(name)                                                                          \
    __global__ void name(float *v)                                                                 \
    {                                                                                              \
        v[threadIdx.x] = 3.0f;                                                                     \
    }
DEFINE_FILL(fill_by_macro)

#define DECLARE_COUNTER(name) __device__ int name;
DECLARE_COUNTER(counter)
__global__ void after_macro_line(int *p)
{
    p[0] = counter;
}

__global__ void overloaded(float *v)
{
    v[0] = 1.0f;
}

__global__ void overloaded(double *v)
{
    v[0] = 2.0;
}
