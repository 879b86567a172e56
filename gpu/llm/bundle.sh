#!/bin/bash
# gpu/llm/bundle.sh BUILD_DIR OUT_DIR: pack what gpu/llm/check.sh runs into OUT_DIR (on
# the CPU machine): rocm-perf and librpl_cupti.so with the libraries the GPU machine
# lacks (scripts/gpu-bundle.sh), the stand-in LLM server and its scripted answers, the
# prompt templates, the kernel sources, the check itself and gpu/lib.sh.  Nothing is compiled for
# the GPU here: the pipeline builds the original and every candidate with the GPU
# machine's nvcc.  libclang is the GPU machine's own (libclang-16).
#   gpu/llm/bundle.sh build/gpu .device-llm
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
bundle_start "$1" "$2"
mkdir -p "$out/templates"
# saxpy of the perf suite with its uncoalesced variant always on: the kernel to speed up.
sed -e '/^#ifdef RPL_SAXPY_UNCOALESCED$/d' -e '/^#endif$/d' \
    -e '1s|.*|// saxpy: y = a * x + y, one element per thread, neighbouring threads 4099 apart.|' \
    "$root/ctest/kernels/saxpy.hip" >"$out/gpu/saxpy_slow.hip"
grep -q '(i \* 4099) & (n - 1)' "$out/gpu/saxpy_slow.hip"
cp "$root/gpu/llm/twokernel.cu" "$root/gpu/llm/shapes.cu" "$root/templates/rpl_harness.h" "$out/gpu/"
cp -r "$root/templates/llm" "$out/templates/"
cp -r "$root/gpu/llm/answers" "$out/"
bundle_finish "$root/tests/llm/standin_server.py" "$root/gpu/llm/check.sh" "$root/gpu/llm/grounded.sh" \
    "$root/gpu/llm/summary.py" "$root/gpu/lib.sh"
