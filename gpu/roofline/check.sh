#!/bin/bash
# gpu/roofline/check.sh BUNDLE: the roofline numbers against the analytic
# counts and Nsight Compute, on an NVIDIA GPU (docs/USER_GUIDE.md §9).
#
# BUNDLE holds bin/ and lib/ built on the CPU machine:
#   bin/rocm-perf, bin/rl_saxpy, bin/rl_copy, bin/gemm_tiled, lib/librpl_cupti.so
# (the programs: nvcc -O2 -arch=sm_90 -lineinfo gpu/roofline/saxpy.cu -o BUNDLE/bin/rl_saxpy,
#  the same for copy.cu -> rl_copy and gpu/cupti/gemm_tiled.cu -> gemm_tiled; a program
#  missing from bin/ is built here when nvcc is on the PATH).  The GEMM runs twice:
#  n = 2048 (16 MiB output, inside the L2) and n = 4096 (64 MiB, beyond it).
# For each program: run it under the CUPTI recorder with
# ROCM_PERF_CUPTI_COUNTERS=roofline, `rocm-perf analyze --out`, then ncu with
# the DRAM byte and FLOP metrics; compare.py checks FLOPs against the
# analytic count (exact) and DRAM bytes within 5 % of ncu per launch.  $OUT
# gets summary.txt (the verdicts), roofline_check.json, and the analyze
# folders, ncu CSVs, the recorder's databases (raw/) and logs in
# results.tar.gz.  Exit 0 when every check passed, 1 otherwise.
# Results on an H200: docs/validation/roofline-gpu.md.
set -u
bundle=$(cd "${1:?usage: check.sh BUNDLE}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/out/roofline}
work=$(mktemp -d)
rp=$bundle/bin/rocm-perf
lib=$bundle/lib/librpl_cupti.so
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out" "$work/logs" "$work/ncu" "$work/analyze" "$work/raw" "$work/bin"
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary" >&2; }
trap 'tar -czf "$out/results.tar.gz" -C "$work" logs ncu analyze raw 2>/dev/null' EXIT

metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
for op in hadd hmul hfma fadd fmul ffma dadd dmul dfma; do
    metrics=$metrics,smsp__sass_thread_inst_executed_op_${op}_pred_on.sum
done

say "# roofline check: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1)"
say "ncu: $(ncu --version 2>&1 | tail -1)"
[ -x "$rp" ] || { say "missing $rp"; exit 1; }
[ -f "$lib" ] || { say "missing $lib"; exit 1; }

# program NAME SOURCE: the binary from the bundle, else built here.
program() {
    if [ -x "$bundle/bin/$1" ]; then
        echo "$bundle/bin/$1"
    elif command -v nvcc >/dev/null &&
        nvcc -O2 -arch=sm_90 -lineinfo "$2" -o "$work/bin/$1" >"$work/logs/nvcc_$1.log" 2>&1; then
        echo "$work/bin/$1"
    fi
}

status=0
# label:program:source[:argument]; gemm_tiled_4096's 64 MiB output exceeds the L2.
for spec in rl_saxpy:rl_saxpy:$here/saxpy.cu rl_copy:rl_copy:$here/copy.cu \
    gemm_tiled:gemm_tiled:$here/../cupti/gemm_tiled.cu \
    gemm_tiled_4096:gemm_tiled:$here/../cupti/gemm_tiled.cu:4096; do
    IFS=: read -r name prog source arg <<<"$spec"
    bin=$(program "$prog" "$source")
    if [ -z "$bin" ]; then
        say "$name: no binary in $bundle/bin and could not build it"
        status=1
        continue
    fi
    rm -rf "$work/raw/$name"
    env ROCM_PERF_LOG=info ROCM_PERF_CUPTI_OUTPUT="$work/raw/$name" CUDA_INJECTION64_PATH="$lib" \
        ROCM_PERF_CUPTI_COUNTERS=roofline timeout -k 5 120 "$bin" $arg >"$work/logs/$name.log" 2>&1 ||
        say "$name under the recorder: exit $? (see logs/$name.log)"
    grep -h "not available\|left out\|counters are off\|lost\|replay passes" "$work/logs/$name.log" |
        sort | uniq -c | sed "s/^/  $name recorder: /" | tee -a "$summary" >&2
    db=$(find "$work/raw/$name" -name '*_results.db' 2>/dev/null | sort | head -1)
    if [ -z "$db" ]; then
        say "$name: the recorder wrote no database"
        status=1
    else
        timeout -k 5 120 "$rp" analyze "$db" --out "$work/analyze/$name" -q >"$work/logs/analyze_$name.log" 2>&1 ||
            say "$name: rocm-perf analyze failed: $(tail -1 "$work/logs/analyze_$name.log")"
    fi
    timeout -k 5 300 ncu --csv --print-units base --clock-control none --cache-control none \
        --metrics "$metrics" "$bin" $arg >"$work/ncu/$name.csv" 2>"$work/logs/ncu_$name.log" ||
        say "$name: ncu failed: $(tail -2 "$work/logs/ncu_$name.log")"
done

timeout -k 5 60 python3 "$here/compare.py" "$work/analyze" "$work/ncu" "$out/roofline_check.json" | tee -a "$summary" >&2
rc=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] && status=1
say "verdict: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
exit $status
