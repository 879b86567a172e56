// Local arrays indexed at run time live on the stack.
template <int N>
__device__ void private_table(float *a, int k)
{
    float t[N];
    for (int i = 0; i < N; i++)
        t[i] = a[i * k + threadIdx.x];
    a[threadIdx.x] = t[(threadIdx.x * k) % N] + t[k % N];
}

__global__ void stack_256(float *a, int k) { private_table<64>(a, k); }
__global__ void __launch_bounds__(128) stack_4096(float *a, int k) { private_table<1024>(a, k); }
