// A HIP source built for NVIDIA GPUs (HIP's NVIDIA platform: nvcc -x cu
// -D__HIP_PLATFORM_NVIDIA__), as ROCm's examples build with GPU_RUNTIME=CUDA.
// HIP's headers refuse both platform macros at once, as this check does.
#if defined(__HIP_PLATFORM_AMD__) && defined(__HIP_PLATFORM_NVIDIA__)
#error "both __HIP_PLATFORM_AMD__ and __HIP_PLATFORM_NVIDIA__ are defined"
#endif

__global__ void scale_rows(float *x, float a, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;

    for (int i = 0; i < 8; i++)
        if (row * 8 + i < n)
            x[row * 8 + i] *= a;
}
