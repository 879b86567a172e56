#!/bin/bash
# gpu/replay/bundle.sh BUILD_DIR OUT_DIR: build what gpu/replay/check.sh runs
# and put it, with rocm-perf, librpl_cupti.so and the libraries the GPU
# machine lacks, into OUT_DIR (on the CPU machine; nvcc builds for sm_90).
#   gpu/replay/bundle.sh build/dev .device-cuda
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
bundle_start "$1" "$2"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
# shellcheck disable=SC2054 # -gencode's value holds commas
arch=(-gencode arch=compute_90,code=sm_90)
# The perf-suite kernels as the suite's nvcc build makes them (cmake/RocmPerfLab.cmake).
for k in saxpy gemm reduce softmax pipeline; do
    "$nvcc" -O3 "${arch[@]}" -I"$root/templates" -o "$out/gpu/$k" -x cu "$root/ctest/kernels/$k.hip"
done
"$nvcc" -O3 "${arch[@]}" -o "$out/gpu/pointer_chase" "$root/gpu/replay/pointer_chase.cu" -lcuda
"$nvcc" -O3 "${arch[@]}" -o "$out/gpu/sgemm_cublas" "$root/gpu/replay/sgemm_cublas.cu" -lcublas
"$nvcc" -cubin -arch=sm_90 -o "$out/gpu/saxpy_ok.cubin" "$root/gpu/replay/saxpy_variants.cu"
"$nvcc" -cubin -arch=sm_90 -DRPL_VARIANT_WRONG -o "$out/gpu/saxpy_wrong.cubin" \
    "$root/gpu/replay/saxpy_variants.cu"
cc -std=c11 -O2 -Wall -Wextra -shared -fPIC -o "$out/gpu/liboccupy_va.so" \
    "$root/gpu/replay/occupy_va.c"
bundle_finish "$root/gpu/replay/check.sh" "$root/gpu/replay/summary.py"
