#!/bin/bash
# gpu/optimize/bundle.sh BUILD_DIR OUT_DIR: pack what gpu/optimize/check.sh runs into
# OUT_DIR (on the CPU machine): rocm-perf and librpl_cupti.so with the libraries the GPU
# machine lacks (scripts/gpu-bundle.sh), the kernel sources the check optimises, and the
# check itself with gpu/lib.sh.  Nothing is compiled for the GPU here: the pipeline builds the original
# and every candidate with the GPU machine's nvcc, as a user's run would.  libclang is the
# GPU machine's own (libclang-16, scripts/gpu-machine-libs.txt): at about 130 MiB with
# libLLVM it would not fit the bundle.
#   gpu/optimize/bundle.sh build/dev .device-optimize
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
bundle_start "$1" "$2"
cp "$root/gpu/optimize/unroll_kernels.cu" "$root/gpu/optimize/gather_sum_hand.cu" \
    "$root/ctest/kernels/saxpy.hip" "$root/templates/rpl_harness.h" "$out/gpu/"
bundle_finish "$root/gpu/optimize/check.sh" "$root/gpu/optimize/summary.py" "$root/gpu/lib.sh"
