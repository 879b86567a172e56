/*
 * Virtual files handed to libclang with the source (nothing is written to
 * disk):
 *  - RPL_KS_MODE_CUDA: empty texture_fetch_functions.h and
 *    texture_indirect_functions.h, which clang's CUDA wrapper includes and
 *    CUDA 12 removed, and declarations clang's wrapper lacks;
 *  - RPL_KS_MODE_CUDA_PRELUDE: a prelude with the CUDA keywords, builtin
 *    variables, vector types, barriers, atomics, warp intrinsics, device
 *    math and the runtime calls host code makes most, included before the
 *    source, and empty stand-ins for the runtime headers a source includes.
 *    It is enough to find kernels, signatures, loops and what the loops
 *    call; the real compiler judges everything else.  The prelude marks
 *    itself a system header, so its declarations count as library calls.
 */
#include <string.h>

#include "ks_internal.h"

static const char prelude[] =
    "#pragma clang system_header\n"
    "#define __CUDACC__ 1\n"
    "#define __host__ __attribute__((host))\n"
    "#define __device__ __attribute__((device))\n"
    "#define __global__ __attribute__((global))\n"
    "#define __shared__ __attribute__((shared))\n"
    "#define __constant__ __attribute__((constant))\n"
    "#define __managed__ __attribute__((managed))\n"
    "#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))\n"
    "#define __forceinline__ __inline__ __attribute__((always_inline))\n"
    "#define __noinline__ __attribute__((noinline))\n"
    "#define __align__(n) __attribute__((aligned(n)))\n"
    "#define __restrict__ __restrict\n"
    "#define RPL_DEV static __device__ __inline__\n"
    "typedef __SIZE_TYPE__ size_t;\n"
    /* Vector types with CUDA's alignment. */
    "#define RPL_VEC2(n, t, a) struct __align__(a) n##2 { t x, y; };\n"
    "#define RPL_VEC3(n, t) struct n##3 { t x, y, z; };\n"
    "#define RPL_VEC4(n, t, a) struct __align__(a) n##4 { t x, y, z, w; };\n"
    "#define RPL_VEC(n, t, a2, a4) struct n##1 { t x; }; RPL_VEC2(n, t, a2) RPL_VEC3(n, t) "
    "RPL_VEC4(n, t, a4)\n"
    "RPL_VEC(char, signed char, 2, 4) RPL_VEC(uchar, unsigned char, 2, 4)\n"
    "RPL_VEC(short, short, 4, 8) RPL_VEC(ushort, unsigned short, 4, 8)\n"
    "RPL_VEC(int, int, 8, 16) RPL_VEC(uint, unsigned int, 8, 16)\n"
    "RPL_VEC(long, long, 16, 16) RPL_VEC(ulong, unsigned long, 16, 16)\n"
    "RPL_VEC(longlong, long long, 16, 16) RPL_VEC(ulonglong, unsigned long long, 16, 16)\n"
    "RPL_VEC(float, float, 8, 16) RPL_VEC(double, double, 16, 16)\n"
    "struct dim3 {\n"
    "    unsigned int x, y, z;\n"
    "    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,\n"
    "                                       unsigned int vz = 1) : x(vx), y(vy), z(vz) {}\n"
    "    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}\n"
    "};\n"
    "struct __half { unsigned short __x; }; typedef __half half;\n"
    "struct __half2 { __half x, y; };\n"
    "struct __nv_bfloat16 { unsigned short __x; };\n"
    "typedef unsigned long long cudaTextureObject_t, cudaSurfaceObject_t;\n"
    /* Builtin variables. */
    "extern const __device__ uint3 threadIdx, blockIdx;\n"
    "extern const __device__ dim3 blockDim, gridDim;\n"
    "extern const __device__ int warpSize;\n"
    /* Barriers and fences (__syncthreads is a clang builtin). */
    "RPL_DEV int __syncthreads_count(int);\n"
    "RPL_DEV int __syncthreads_and(int);\n"
    "RPL_DEV int __syncthreads_or(int);\n"
    "RPL_DEV void __syncwarp(unsigned int mask = 0xffffffffu);\n"
    "RPL_DEV void __threadfence(void);\n"
    "RPL_DEV void __threadfence_block(void);\n"
    "RPL_DEV void __threadfence_system(void);\n"
    /* Atomics, with the _block and _system scopes. */
    "#define RPL_ATOMIC_OP(op, t) RPL_DEV t op(t *, t); RPL_DEV t op##_block(t *, t); "
    "RPL_DEV t op##_system(t *, t);\n"
    "#define RPL_ATOMIC_CAS(t) RPL_DEV t atomicCAS(t *, t, t); "
    "RPL_DEV t atomicCAS_block(t *, t, t); RPL_DEV t atomicCAS_system(t *, t, t);\n"
    "#define RPL_ATOMICS(t) RPL_ATOMIC_OP(atomicAdd, t) RPL_ATOMIC_OP(atomicSub, t) "
    "RPL_ATOMIC_OP(atomicExch, t) RPL_ATOMIC_OP(atomicMin, t) RPL_ATOMIC_OP(atomicMax, t) "
    "RPL_ATOMIC_OP(atomicAnd, t) RPL_ATOMIC_OP(atomicOr, t) RPL_ATOMIC_OP(atomicXor, t) "
    "RPL_ATOMIC_CAS(t)\n"
    "RPL_ATOMICS(int) RPL_ATOMICS(unsigned int) RPL_ATOMICS(long long) "
    "RPL_ATOMICS(unsigned long long) RPL_ATOMICS(float) RPL_ATOMICS(double)\n"
    "RPL_DEV unsigned int atomicInc(unsigned int *, unsigned int);\n"
    "RPL_DEV unsigned int atomicDec(unsigned int *, unsigned int);\n"
    /* Warp intrinsics. */
    "#define RPL_SHFL(t) RPL_DEV t __shfl_sync(unsigned int, t, int, int = 32); "
    "RPL_DEV t __shfl_up_sync(unsigned int, t, unsigned int, int = 32); "
    "RPL_DEV t __shfl_down_sync(unsigned int, t, unsigned int, int = 32); "
    "RPL_DEV t __shfl_xor_sync(unsigned int, t, int, int = 32);\n"
    "RPL_SHFL(int) RPL_SHFL(unsigned int) RPL_SHFL(long long) RPL_SHFL(unsigned long long) "
    "RPL_SHFL(float) RPL_SHFL(double)\n"
    "RPL_DEV unsigned int __ballot_sync(unsigned int, int);\n"
    "RPL_DEV int __all_sync(unsigned int, int);\n"
    "RPL_DEV int __any_sync(unsigned int, int);\n"
    "RPL_DEV unsigned int __activemask(void);\n"
    "RPL_DEV int __popc(unsigned int); RPL_DEV int __popcll(unsigned long long);\n"
    "RPL_DEV int __clz(int); RPL_DEV int __clzll(long long);\n"
    "RPL_DEV int __ffs(int); RPL_DEV int __ffsll(long long);\n"
    "RPL_DEV unsigned int __brev(unsigned int);\n"
    "RPL_DEV int __mul24(int, int); RPL_DEV unsigned int __umul24(unsigned int, unsigned int);\n"
    "RPL_DEV int __mulhi(int, int); RPL_DEV unsigned int __umulhi(unsigned int, unsigned int);\n"
    "RPL_DEV long long clock64(void); RPL_DEV void __nanosleep(unsigned int);\n"
    "template <typename T> RPL_DEV T __ldg(const T *);\n"
    /* Device math (host <cmath> keeps its own declarations). */
    "#define RPL_F1(f) RPL_DEV float f(float);\n"
    "#define RPL_F2(f) RPL_DEV float f(float, float);\n"
    "#define RPL_D1(f) RPL_DEV double f(double);\n"
    "#define RPL_D2(f) RPL_DEV double f(double, double);\n"
    "RPL_F1(expf) RPL_F1(exp2f) RPL_F1(exp10f) RPL_F1(expm1f) RPL_F1(logf) RPL_F1(log2f) "
    "RPL_F1(log10f) RPL_F1(log1pf) RPL_F1(sqrtf) RPL_F1(rsqrtf) RPL_F1(cbrtf) RPL_F1(sinf) "
    "RPL_F1(cosf) RPL_F1(tanf) RPL_F1(asinf) RPL_F1(acosf) RPL_F1(atanf) RPL_F1(sinhf) "
    "RPL_F1(coshf) RPL_F1(tanhf) RPL_F1(fabsf) RPL_F1(floorf) RPL_F1(ceilf) RPL_F1(roundf) "
    "RPL_F1(truncf) RPL_F1(rintf) RPL_F1(erff) RPL_F1(erfcf) RPL_F1(__expf) RPL_F1(__logf) "
    "RPL_F1(__sinf) RPL_F1(__cosf) RPL_F1(__saturatef) RPL_F1(__frcp_rn) RPL_F1(__fsqrt_rn)\n"
    "RPL_F2(powf) RPL_F2(atan2f) RPL_F2(fminf) RPL_F2(fmaxf) RPL_F2(fmodf) RPL_F2(hypotf) "
    "RPL_F2(copysignf) RPL_F2(__powf) RPL_F2(__fdividef) RPL_F2(__fadd_rn) RPL_F2(__fmul_rn)\n"
    "RPL_DEV float fmaf(float, float, float); RPL_DEV float __fmaf_rn(float, float, float);\n"
    "RPL_D1(exp) RPL_D1(exp2) RPL_D1(log) RPL_D1(log2) RPL_D1(log10) RPL_D1(log1p) RPL_D1(sqrt) "
    "RPL_D1(rsqrt) RPL_D1(sin) RPL_D1(cos) RPL_D1(tan) RPL_D1(tanh) RPL_D1(fabs) RPL_D1(floor) "
    "RPL_D1(ceil) RPL_D1(round) RPL_D1(erf)\n"
    "RPL_D2(pow) RPL_D2(atan2) RPL_D2(fmin) RPL_D2(fmax) RPL_D2(fmod)\n"
    "RPL_DEV double fma(double, double, double);\n"
    "extern \"C\" __device__ int printf(const char *, ...);\n"
    /* The runtime calls host code makes most, so that host code parses too. */
    "typedef int cudaError_t; enum { cudaSuccess = 0 };\n"
    "typedef struct CUstream_st *cudaStream_t; typedef struct CUevent_st *cudaEvent_t;\n"
    "enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1, cudaEventDefault = 0, "
    "cudaEventBlockingSync = 1, cudaEventDisableTiming = 2 };\n"
    "enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, "
    "cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };\n"
    "extern \"C\" {\n"
    "cudaError_t cudaMalloc(void **, size_t); cudaError_t cudaFree(void *);\n"
    "cudaError_t cudaMallocHost(void **, size_t); cudaError_t cudaFreeHost(void *);\n"
    "cudaError_t cudaMallocManaged(void **, size_t, unsigned int = 1);\n"
    "cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);\n"
    "cudaError_t cudaMemcpyAsync(void *, const void *, size_t, cudaMemcpyKind, "
    "cudaStream_t = 0);\n"
    "cudaError_t cudaMemset(void *, int, size_t);\n"
    "cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t = 0);\n"
    "cudaError_t cudaDeviceSynchronize(void); cudaError_t cudaDeviceReset(void);\n"
    "cudaError_t cudaGetLastError(void); cudaError_t cudaPeekAtLastError(void);\n"
    "const char *cudaGetErrorString(cudaError_t);\n"
    "cudaError_t cudaSetDevice(int); cudaError_t cudaGetDevice(int *);\n"
    "cudaError_t cudaStreamCreate(cudaStream_t *);\n"
    "cudaError_t cudaStreamCreateWithFlags(cudaStream_t *, unsigned int);\n"
    "cudaError_t cudaStreamSynchronize(cudaStream_t);\n"
    "cudaError_t cudaStreamDestroy(cudaStream_t);\n"
    "cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int = 0);\n"
    "cudaError_t cudaEventCreate(cudaEvent_t *);\n"
    "cudaError_t cudaEventCreateWithFlags(cudaEvent_t *, unsigned int);\n"
    "cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0);\n"
    "cudaError_t cudaEventSynchronize(cudaEvent_t);\n"
    "cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);\n"
    "cudaError_t cudaEventDestroy(cudaEvent_t);\n"
    "cudaError_t cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = 0);\n"
    "unsigned int __cudaPushCallConfiguration(dim3, dim3, size_t = 0, void * = 0);\n"
    "}\n"
    "template <class T> cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, "
    "n); }\n"
    "template <class T> cudaError_t cudaMallocHost(T **p, size_t n) "
    "{ return cudaMallocHost((void **)p, n); }\n"
    "template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned int f = 1) "
    "{ return cudaMallocManaged((void **)p, n, f); }\n";

/* Headers a CUDA or HIP source includes that the prelude stands in for. */
static const char *const prelude_stubs[] = {KS_STUB_DIR "/cuda_runtime.h",
                                            KS_STUB_DIR "/cuda_runtime_api.h",
                                            KS_STUB_DIR "/cuda.h",
                                            KS_STUB_DIR "/device_launch_parameters.h",
                                            KS_STUB_DIR "/cuda_fp16.h",
                                            KS_STUB_DIR "/cuda_bf16.h",
                                            KS_STUB_DIR "/hip/hip_runtime.h",
                                            KS_STUB_DIR "/hip/hip_runtime_api.h",
                                            KS_STUB_DIR "/hip/hip_fp16.h",
                                            NULL};

/*
 * Included after clang's CUDA wrapper: what it does not declare and nvcc's
 * headers do: the sm_80 warp reductions that cooperative groups call
 * (sm_80_rt.h), and the loads and stores with a cache hint (__ldcs, __stcs,
 * ...: sm_32_intrinsics.h, which the wrapper keeps out; clang 16 lacks
 * them), for the scalar and vector types the CUDA guide lists.  Plain
 * declarations: an inline definition of the same functions, before or
 * after, is still valid C++.
 */
static const char cuda_compat[] =
    "#pragma clang system_header\n"
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
    "#define RPL_REDUX(op, t) __attribute__((device)) t __reduce_##op##_sync(unsigned int, t);\n"
    "RPL_REDUX(add, unsigned int) RPL_REDUX(add, int) RPL_REDUX(min, unsigned int)\n"
    "RPL_REDUX(min, int) RPL_REDUX(max, unsigned int) RPL_REDUX(max, int)\n"
    "RPL_REDUX(and, unsigned int) RPL_REDUX(or, unsigned int) RPL_REDUX(xor, unsigned int)\n"
    "#undef RPL_REDUX\n"
    "#endif\n"
    "#if defined(__CUDA_ARCH__)\n"
    "#define RPL_LDST(t) __attribute__((device)) t __ldcg(const t *); "
    "__attribute__((device)) t __ldca(const t *); __attribute__((device)) t __ldcs(const t *); "
    "__attribute__((device)) t __ldlu(const t *); __attribute__((device)) t __ldcv(const t *); "
    "__attribute__((device)) void __stwb(t *, t); __attribute__((device)) void __stcg(t *, t); "
    "__attribute__((device)) void __stcs(t *, t); __attribute__((device)) void __stwt(t *, t);\n"
    "RPL_LDST(char) RPL_LDST(signed char) RPL_LDST(unsigned char) RPL_LDST(short)\n"
    "RPL_LDST(unsigned short) RPL_LDST(int) RPL_LDST(unsigned int) RPL_LDST(long)\n"
    "RPL_LDST(unsigned long) RPL_LDST(long long) RPL_LDST(unsigned long long)\n"
    "RPL_LDST(float) RPL_LDST(double) RPL_LDST(char2) RPL_LDST(char4) RPL_LDST(uchar2)\n"
    "RPL_LDST(uchar4) RPL_LDST(short2) RPL_LDST(short4) RPL_LDST(ushort2) RPL_LDST(ushort4)\n"
    "RPL_LDST(int2) RPL_LDST(int4) RPL_LDST(uint2) RPL_LDST(uint4) RPL_LDST(longlong2)\n"
    "RPL_LDST(ulonglong2) RPL_LDST(float2) RPL_LDST(float4) RPL_LDST(double2)\n"
    "#undef RPL_LDST\n"
    "#endif\n";

/* What clang 14-17's CUDA wrapper includes and CUDA 12 no longer ships. */
static const char *const toolkit_stubs[] = {KS_STUB_DIR "/texture_fetch_functions.h",
                                            KS_STUB_DIR "/texture_indirect_functions.h", NULL};

static size_t add_stubs(const char *const *names, struct CXUnsavedFile *files, size_t n, size_t max)
{
    for (size_t i = 0; names[i] && n < max; i++) {
        files[n].Filename = names[i];
        files[n].Contents = "";
        files[n].Length = 0;
        n++;
    }
    return n;
}

/* A header first, then the empty stubs beside it. */
static size_t header_and_stubs(const char *path, const char *contents, const char *const *stubs,
                               struct CXUnsavedFile *files, size_t max)
{
    if (max == 0)
        return 0;
    files[0].Filename = path;
    files[0].Contents = contents;
    files[0].Length = (unsigned long)strlen(contents);
    return add_stubs(stubs, files, 1, max);
}

size_t ks_virtual_files(rpl_ks_mode mode, struct CXUnsavedFile *files, size_t max)
{
    switch (mode) {
    case RPL_KS_MODE_HIP:
        return 0;
    case RPL_KS_MODE_CUDA:
        return header_and_stubs(KS_CUDA_COMPAT_PATH, cuda_compat, toolkit_stubs, files, max);
    case RPL_KS_MODE_CUDA_PRELUDE:
        return header_and_stubs(KS_PRELUDE_PATH, prelude, prelude_stubs, files, max);
    }
    return 0;
}
