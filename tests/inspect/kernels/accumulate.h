// Register pressure for the inspect kernels (HIP and CUDA alike; include it
// after the runtime's header): N accumulators kept live across a loop.
#pragma once

template <int N> __device__ void accumulate(float *out, const float *in, int iters)
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
