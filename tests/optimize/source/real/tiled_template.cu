// A tiled matrix product over a template block size: the inner loop reads
// shared tiles through operators on dependent types, which are no calls.
template <unsigned BlockSize>
__global__ void tiled_product(const float *a, const float *b, float *c, unsigned n)
{
    __shared__ float ta[BlockSize][BlockSize];
    __shared__ float tb[BlockSize][BlockSize];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned row = blockIdx.y * BlockSize + ty, col = blockIdx.x * BlockSize + tx;
    float sum = 0.0f;
    for (unsigned t = 0; t < n; t += BlockSize) {
        ta[ty][tx] = a[row * n + t + tx];
        tb[ty][tx] = b[(t + ty) * n + col];
        __syncthreads();
        for (unsigned i = 0; i < BlockSize; ++i)
            sum += ta[ty][i] * tb[i][tx];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

template <typename T>
__device__ T twice(T v)
{
    return v + v;
}

// A named dependent call with a visible body is followed; a dependent
// functor argument is a call the parser cannot see into.
template <typename T, typename Op>
__global__ void apply(T *v, int n, Op op)
{
    for (int i = 0; i < n; ++i)
        v[i] = twice(v[i]);
    for (int i = 0; i < n; ++i)
        v[i] = op(v[i]);
}

template __global__ void tiled_product<16>(const float *, const float *, float *, unsigned);
template __global__ void tiled_product<32>(const float *, const float *, float *, unsigned);
