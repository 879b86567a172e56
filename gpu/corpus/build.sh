#!/usr/bin/env bash
# Build the corpus programs for the GPU machine (which has no network).
#
#   gpu/corpus/build.sh CORPUS_DIR OUT_DIR
#
# CORPUS_DIR is what scripts/fetch-corpus.sh wrote.  Each program is built the
# way its own project builds it (the Makefile, CMake, or the sample's nvcc
# line), for sm_90, into OUT_DIR/bin.  The HIP programs are built for the NVIDIA
# platform, as rocm-examples' Makefiles do with GPU_RUNTIME=CUDA (`nvcc -x cu`,
# HIP's include folder, __HIP_PLATFORM_NVIDIA__): HIP's headers (HIP_INCLUDE,
# default /usr/include: Debian's HIP 5.2) are copied to OUT_DIR/hip-include by
# gpu/corpus/hip_cuda13.py, which keeps their NVIDIA layer out of what CUDA 13
# removed.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: gpu/corpus/build.sh CORPUS_DIR OUT_DIR" >&2; exit 2; }
src=$(cd "$1" && pwd)
mkdir -p "$2/bin"
out=$(cd "$2" && pwd)
cuda=${RPL_CUDA_ROOT:-/usr/local/cuda}
export PATH="$cuda/bin:$PATH"
jobs=${JOBS:-2}

# karpathy/llm.c dev/cuda: its Makefile (cooperative groups; cuBLAS, cuBLASLt).
make -C "$src/karpathy+llm.c/dev/cuda" -j"$jobs" GPU_COMPUTE_CAPABILITY=90 \
    layernorm_forward matmul_forward
cp "$src/karpathy+llm.c/dev/cuda/layernorm_forward" "$src/karpathy+llm.c/dev/cuda/matmul_forward" \
    "$out/bin/"

# siboehm/SGEMM_CUDA: CMake (templates, cuBLAS); the project pins sm_86, the GPU is sm_90.
cmake -S "$src/siboehm+SGEMM_CUDA" -B "$src/siboehm+SGEMM_CUDA/build" -DCMAKE_BUILD_TYPE=Release \
    -DCUDA_COMPUTE_CAPABILITY=90 -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" >/dev/null
cmake --build "$src/siboehm+SGEMM_CUDA/build" -j"$jobs" --target sgemm
cp "$src/siboehm+SGEMM_CUDA/build/sgemm" "$out/bin/"

# NVIDIA/cuda-samples: the samples' own nvcc line (templates, cooperative groups, thrust/CUB).
cs="$src/NVIDIA+cuda-samples"
nvcc -O3 -arch=sm_90 -I"$cs/Common" -o "$out/bin/reduction" \
    "$cs/Samples/2_Concepts_and_Techniques/reduction/reduction.cpp" \
    "$cs/Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu"
nvcc -O3 -arch=sm_90 -I"$cs/Common" -o "$out/bin/radixSortThrust" \
    "$cs/Samples/2_Concepts_and_Techniques/radixSortThrust/radixSortThrust.cu"
# ROCm/rocm-examples: HIP for the NVIDIA platform (templates, HIP cooperative groups).
python3 "$(dirname "$0")/hip_cuda13.py" "${HIP_INCLUDE:-/usr/include}" "$out/hip-include"
re="$src/ROCm+rocm-examples"
for p in matrix_multiplication:hip_matmul cooperative_groups:hip_cg; do
    nvcc -x cu -O3 -std=c++17 -arch=sm_90 -D__HIP_PLATFORM_NVIDIA__ -isystem "$out/hip-include" \
        -I"$re/Common" -o "$out/bin/${p#*:}" "$re/HIP-Basic/${p%%:*}/main.hip"
done
echo "built: $(ls "$out/bin" | tr '\n' ' ')"
