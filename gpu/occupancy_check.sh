#!/bin/sh
# GPU validation of `rocm-perf inspect` for NVIDIA: build gpu/occupancy_check.cu
# for sm_90, run it (CUDA runtime: cudaFuncGetAttributes and
# cudaOccupancyMaxActiveBlocksPerMultiprocessor for 8 kernels x up to 10
# block sizes), run `rocm-perf inspect --arch sm_90 --block N --json` on the
# same binary, and compare.  Results go to $OUT (default ./occupancy-out).
#
# usage: gpu/occupancy_check.sh [run|compare]
#   run      (default) build + run on the GPU, then compare if rocm-perf is there
#   compare  compare what a previous run left in $OUT (on any machine with rocm-perf)
# Environment: OUT, NVCC (default /usr/local/cuda/bin/nvcc), ROCM_PERF (default:
#   build/*/src/cli/rocm-perf, else built here with cmake into build/gpu-check).
#
# Writes $OUT/runtime.jsonl, $OUT/occupancy_check (the binary),
# $OUT/cuobjdump.txt (when cuobjdump exists), $OUT/inspect-<block>.json,
# $OUT/compare.txt.  Exit 0 all equal, 1 a difference, 77 no GPU, 2/3 errors.
set -eu

MODE=${1:-run}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
OUT=${OUT:-$PWD/occupancy-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$OUT"

find_rocm_perf() {
    if [ -n "${ROCM_PERF:-}" ]; then
        echo "$ROCM_PERF"
        return
    fi
    for c in "$ROOT"/build/*/src/cli/rocm-perf; do
        if [ -x "$c" ] && "$c" --version > /dev/null 2>&1; then
            echo "$c"
            return
        fi
    done
    if command -v cmake > /dev/null 2>&1 &&
        cmake -S "$ROOT" -B "$ROOT/build/gpu-check" -DCMAKE_BUILD_TYPE=Release \
            -DRPL_BUILD_TESTS=OFF > "$OUT/cmake.log" 2>&1 &&
        cmake --build "$ROOT/build/gpu-check" -j 8 --target rocm-perf >> "$OUT/cmake.log" 2>&1; then
        echo "$ROOT/build/gpu-check/src/cli/rocm-perf"
    fi
}

if [ "$MODE" = run ]; then
    "$NVCC" -O2 -arch=sm_90 -Xptxas -v -o "$OUT/occupancy_check" "$HERE/occupancy_check.cu" \
        > "$OUT/nvcc.log" 2>&1 || { cat "$OUT/nvcc.log" >&2; exit 3; }
    rc=0
    "$OUT/occupancy_check" > "$OUT/runtime.jsonl" || rc=$?
    [ "$rc" -eq 0 ] || { echo "occupancy_check: exit $rc (77: no GPU)" >&2; exit "$rc"; }
    CUOBJDUMP=$(command -v cuobjdump || echo "$(dirname "$NVCC")/cuobjdump")
    if [ -x "$CUOBJDUMP" ]; then
        "$CUOBJDUMP" --dump-resource-usage "$OUT/occupancy_check" > "$OUT/cuobjdump.txt" 2>&1 || true
    fi
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/nvidia-smi.csv" \
        2>&1 || true
elif [ "$MODE" != compare ]; then
    echo "usage: gpu/occupancy_check.sh [run|compare]" >&2
    exit 2
fi

RPL=$(find_rocm_perf)
if [ -z "$RPL" ]; then
    echo "occupancy_check: no rocm-perf here; run 'gpu/occupancy_check.sh compare' with OUT=$OUT" \
        "on a machine that has one" >&2
    exit 0
fi
for b in 32 64 96 128 192 256 384 512 768 1024; do
    "$RPL" inspect --arch sm_90 --block "$b" --json -o "$OUT/inspect-$b.json" "$OUT/occupancy_check"
done
# Keep the compare's exit status (a plain pipe into tee would lose it).
status=0
python3 "$HERE/compare_occupancy.py" "$OUT" >"$OUT/compare.txt" || status=$?
cat "$OUT/compare.txt"
exit $status
