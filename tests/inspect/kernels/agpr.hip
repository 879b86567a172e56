// Accumulation registers: on gfx90a/gfx94x the AGPRs share the VGPR file.
#include <hip/hip_runtime.h>

#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define HAVE_AGPRS 1
#endif

// Two arch VGPRs and five AGPRs: the unified count is alignTo(2, 4) + 5.
__global__ void agpr_clobber_5(float *a)
{
    float x = a[threadIdx.x];
#ifdef HAVE_AGPRS
    asm volatile("; clobber" ::: "a0", "a1", "a2", "a3", "a4");
#endif
    a[threadIdx.x] = x * 2.0f;
}

// Many AGPRs together with a moderate VGPR count.
__global__ void __launch_bounds__(256) agpr_clobber_64(float *a, const float *b)
{
    float v[12];
#pragma unroll
    for (int i = 0; i < 12; i++)
        v[i] = b[threadIdx.x + i * 256];
#ifdef HAVE_AGPRS
    asm volatile("; clobber" ::: "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9",
                 "a10", "a11", "a12", "a13", "a14", "a15", "a16", "a17", "a18", "a19", "a20",
                 "a21", "a22", "a23", "a24", "a25", "a26", "a27", "a28", "a29", "a30", "a31",
                 "a32", "a33", "a34", "a35", "a36", "a37", "a38", "a39", "a40", "a41", "a42",
                 "a43", "a44", "a45", "a46", "a47", "a48", "a49", "a50", "a51", "a52", "a53",
                 "a54", "a55", "a56", "a57", "a58", "a59", "a60", "a61", "a62", "a63");
#endif
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 12; i++)
        s += v[i] * v[(i + 5) % 12];
    a[threadIdx.x] = s;
}

// Matrix cores where the target has them.
typedef float float16v __attribute__((ext_vector_type(16)));
__global__ void __launch_bounds__(64) mfma_f32_32x32(float16v *out, const float *a, const float *b)
{
    float16v acc = out[threadIdx.x];
#ifdef HAVE_AGPRS
    for (int i = 0; i < 16; i++)
        acc = __builtin_amdgcn_mfma_f32_32x32x2f32(a[i * 64 + threadIdx.x], b[i * 64 + threadIdx.x],
                                                   acc, 0, 0, 0);
#else
    for (int i = 0; i < 16; i++)
        acc += a[i * 64 + threadIdx.x] * b[i * 64 + threadIdx.x];
#endif
    out[threadIdx.x] = acc;
}
