// Fixture for the loop facts and unroll guardrails: one kernel per case.
#include <hip/hip_runtime.h>

#define TILE 16
#define FOR_EACH(i, n) for (int i = 0; i < (n); i++)

extern __shared__ float dyn[];

__device__ void helper_barrier(float *v)
{
    v[threadIdx.x] += 1.0f;
    __syncthreads();
}

__device__ void helper_deeper(float *v)
{
    helper_barrier(v);
}

__device__ float helper_plain(float x)
{
    return x * 0.5f;
}

__device__ float declared_only(float x);

__global__ void plain_loops(float *out, const float *in, int n)
{
    float acc = 0.0f;
    for (int k = 0; k < TILE; k++) // loop 0: trip 16
        acc += in[k] * helper_plain(in[k + 1]);
    for (int k = 0; k <= 10; k += 2) // loop 1: trip 6
        acc += in[k];
    for (int k = 64; k > 0; k -= 1) // loop 2: trip 64
        acc -= in[k];
    for (int o = warpSize / 2; o > 0; o /= 2) // loop 3: trip 5 or 6
        acc += in[o];
    for (unsigned k = 1; k < 256; k <<= 1) // loop 4: trip 8
        acc += in[k];
    for (int i = threadIdx.x; i < n; i += blockDim.x) // loop 5: unknown trip
        acc += in[i];
    int w = 0;
    while (w < n) // loop 6: while
        w += 3;
    do { // loop 7: do
        w--;
    } while (w > 0);
    float vals[4] = {1, 2, 3, 4};
    for (float v : vals) // loop 8: range-for
        acc += v;
    for (int k = 0; k < 7; k++) // loop 9: trip 7
        acc += in[k];
    for (int k = 0; k < 1; k++) // loop 10: trip 1
        acc += in[k];
    out[threadIdx.x] = acc + (float)w;
}

__global__ void guarded(float *out, int *count, const float *in, int n)
{
    for (int i = 0; i < n; i++) { // loop 0: barrier
        out[i] = in[i];
        __syncthreads();
    }
    for (int i = 0; i < n; i++) // loop 1: atomic
        atomicAdd(count, 1);
    for (int i = 0; i < n; i++) // loop 2: dynamic shared memory
        dyn[i] = in[i];
    for (int i = 0; i < n; i++) { // loop 3: break
        if (in[i] < 0.0f)
            break;
        out[i] = 1.0f;
    }
    for (int i = 0; i < n; i++) { // loop 4: return
        if (in[i] > 1.0f)
            return;
    }
    for (int i = 0; i < n; i++) { // loop 5: goto
        if (in[i] == 2.0f)
            goto done;
    }
    for (int i = 0; i < n; i++) // loop 6: barrier two calls deep
        helper_deeper(out);
    for (int i = 0; i < n; i++) // loop 7: a body that is not visible
        out[i] = declared_only(in[i]);
done:
    out[0] = 0.0f;
}

__global__ void nested(float *out, const float *in, int n)
{
    for (int i = 0; i < n; i++) {       // loop 0: outer, barrier through the inner loop
        for (int j = 0; j < TILE; j++) { // loop 1: depth 1, break leaves only this loop
            if (in[j] < 0.0f)
                break;
            out[i] += in[j];
        }
        switch (i & 1) {
        case 0:
            break; // leaves the switch, not the loop
        default:
            out[i] = 0.0f;
        }
        for (int j = 0; j < 4; j++) { // loop 2: depth 1, barrier
            __syncthreads();
        }
    }
    auto f = [](float x) { for (int q = 0; q < 2; q++) x += 1.0f; return x; };
    for (int i = 0; i < n; i++) // loop 3: calls a lambda; its return is its own
        out[i] = f(out[i]);
}

__global__ void pragmas(float *out, const float *in, int n)
{
#pragma unroll 4
    for (int i = 0; i < n; i++) // loop 0: unroll 4
        out[i] = in[i];
#pragma unroll
    for (int i = 0; i < TILE; i++) // loop 1: full
        out[i] += in[i];
#pragma unroll(2)
    for (int i = 0; i < n; i++) // loop 2: unroll 2
        out[i] -= in[i];
#pragma nounroll
    for (int i = 0; i < n; i++) // loop 3: 1
        out[i] *= 2.0f;
#pragma clang loop unroll_count(8)
    for (int i = 0; i < n; i++) // loop 4: 8
        out[i] *= 3.0f;
#pragma unroll TILE
    for (int i = 0; i < n; i++) // loop 5: other
        out[i] *= 4.0f;
    _Pragma("unroll 2") for (int i = 0; i < n; i++) // loop 6: _Pragma 2
        out[i] *= 5.0f;
    FOR_EACH(i, n) // loop 7: from a macro
        out[i] += 1.0f;
    if (n > 2) for (int i = 0; i < n; i++) out[i] += 2.0f; // loop 8: not first on its line
}
