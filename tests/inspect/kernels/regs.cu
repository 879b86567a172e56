// Register pressure: N accumulators kept live across a loop.
template <int N>
__device__ void accumulate(float *out, const float *in, int iters)
{
    float acc[N];
#pragma unroll
    for (int j = 0; j < N; j++)
        acc[j] = in[threadIdx.x + j * 64];
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int j = 0; j < N; j++)
            acc[j] = acc[j] * acc[(j + 1) % N] + in[it];
    }
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < N; j++)
        s += acc[j] * (float)(j + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void __launch_bounds__(256) regs_16(float *o, const float *i, int n) { accumulate<16>(o, i, n); }
__global__ void __launch_bounds__(256) regs_48(float *o, const float *i, int n) { accumulate<48>(o, i, n); }
__global__ void __launch_bounds__(256) regs_96(float *o, const float *i, int n) { accumulate<96>(o, i, n); }
__global__ void __launch_bounds__(256) regs_160(float *o, const float *i, int n) { accumulate<160>(o, i, n); }
// 1024 threads and two blocks per SM leave 32 registers: it spills to the stack.
__global__ void __launch_bounds__(1024, 2) regs_160_spill(float *o, const float *i, int n) { accumulate<160>(o, i, n); }
