#!/bin/bash
# gpu/replay/check.sh: the GPU acceptance list of issue 13 for CUDA capture
# and replay, in one run on an NVIDIA GPU.
#
# Everything is built on the CPU machine (docs/validation/replay-gpu.md has
# the commands) into a bundle, by default .device-cuda/ (RPL_BUNDLE):
#   bin/rocm-perf, lib/librpl_cupti.so and the libraries the GPU machine lacks,
#   gpu/{saxpy,gemm,reduce,softmax,pipeline}   ctest/kernels/*.hip built by nvcc for sm_90
#   gpu/{pointer_chase,sgemm_cublas}           gpu/replay/*.cu
#   gpu/saxpy_ok.cubin, gpu/saxpy_wrong.cubin  candidates (gpu/replay/saxpy_variants.cu)
#   gpu/liboccupy_va.so                        the forced reservation conflict
#   check.sh, summary.py                       this script and its table
# On the GPU machine, from the repository root:  OUT=DIR bash .device-cuda/check.sh
#
# Steps, each logged under $OUT (logs.tar.gz): capture every program's kernel
# (its 4th matching dispatch; the pointer chase's 3rd), replay it with
# --check; time the same kernels in the application with the CUPTI recorder
# in serial mode and in replay (60 each); reserve-check on a snapshot, then
# again with the captured address already mapped; the saxpy candidates.
# summary.py prints the table last and writes results.json.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=${RPL_BUNDLE:-$(cd "$(dirname "$0")" && pwd)}
out=${OUT:-$root/out/replay}
rp=$bundle/bin/rocm-perf
lib=$bundle/lib/librpl_cupti.so
g=$bundle/gpu
reps=${RPL_REPS:-60}
work=$(mktemp -d)
mkdir -p "$out" "$work/logs" "$work/snap" "$work/json" "$work/rec" "$work/exit"
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ROCM_PERF_CUPTI_LIB=$lib
finish() { tar -czf "$out/logs.tar.gz" -C "$work" logs json exit 2>/dev/null; }
trap finish EXIT

log() { echo "$*" | tee -a "$work/logs/steps.txt" >&2; }
# status NAME CODE: remember a step's exit status for the table
status() { echo "$2" >"$work/exit/$1"; }

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname) kernel: $(uname -r)"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1)"
    echo "rocm-perf: $("$rp" version 2>&1)"
} | tee "$work/logs/machine.txt" >&2
[ -x "$rp" ] && [ -f "$lib" ] || { log "missing $rp or $lib"; exit 1; }

# case NAME REGEX DISPATCH PROGRAM ARGS...: the kernels under test
cases=(
    "saxpy|^saxpy|3|saxpy --reps $reps"
    "reduce|^block_reduce|3|reduce --reps $reps"
    "softmax|^softmax_rows|3|softmax --reps $reps"
    "gemm|^gemm_tiled|3|gemm --reps $reps"
    "gemm2048|^gemm_tiled|3|gemm --reps $reps --size 2048"
    "pipeline|^transform_chunk|3|pipeline --reps $reps"
    "cublas|[Gg][Ee][Mm][Mm]|3|sgemm_cublas --reps $reps"
    "pointer_chase|chase|2|pointer_chase --reps 5"
)

for c in "${cases[@]}"; do
    IFS='|' read -r name regex dispatch cmd <<<"$c"
    read -r -a argv <<<"$cmd"
    argv[0]=$g/${argv[0]}
    log "== $name: capture (--kernel '$regex' --dispatch $dispatch)"
    ROCM_PERF_LOG=debug timeout -k 5 120 "$rp" capture --kernel "$regex" --dispatch "$dispatch" \
        --out "$work/snap/$name" -- "${argv[@]}" >"$work/logs/capture_$name.log" 2>&1
    status "capture_$name" $?
    tail -3 "$work/logs/capture_$name.log" >&2
    [ -d "$work/snap/$name" ] || continue
    cp "$work/snap/$name/dispatch.json" "$work/json/dispatch_$name.json"
    cp "$work/snap/$name/memory_regions.json" "$work/json/regions_$name.json"

    log "== $name: replay --check"
    extra=()
    [ "$name" = pointer_chase ] && extra=(--check-runs 3 --poison)
    [ "$name" = gemm ] && extra=(--poison)
    timeout -k 5 180 "$rp" replay full-vm "$work/snap/$name" --iterations "$reps" --warmup 5 \
        --check "${extra[@]}" --json -v >"$work/json/replay_$name.json" \
        2>"$work/logs/replay_$name.log"
    status "replay_$name" $?
    tail -3 "$work/logs/replay_$name.log" >&2
    # The text form once, for the record.
    timeout -k 5 120 "$rp" replay full-vm "$work/snap/$name" --iterations 10 \
        >"$work/logs/replay_text_$name.log" 2>&1

    [ "$name" = pointer_chase ] && continue
    log "== $name: in-application times (CUPTI recorder, serial kernel timing)"
    env CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_OUTPUT="$work/rec/$name" \
        ROCM_PERF_CUPTI_KERNELS=serial timeout -k 5 120 "${argv[@]}" \
        >"$work/logs/record_$name.log" 2>&1
    status "record_$name" $?
    log "== $name: replay timed with CUDA events (for the timer comparison)"
    ROCM_PERF_REPLAY_TIMER=event timeout -k 5 120 "$rp" replay full-vm "$work/snap/$name" \
        --iterations "$reps" --warmup 5 --json >"$work/json/replay_event_$name.json" \
        2>"$work/logs/replay_event_$name.log"
    status "replay_event_$name" $?
done

log "== reserve-check on the saxpy snapshot, then with its first region already mapped"
"$rp" replay reserve-check "$work/snap/saxpy" >"$work/logs/reserve_check.log" 2>&1
status reserve_check $?
conflict=$(python3 - "$work/snap/saxpy/memory_regions.json" <<'PY'
import json, sys
regions = json.load(open(sys.argv[1]))["regions"]
base, size = int(regions[0]["base"], 16), int(regions[0]["size"])
lo = base & ~(2**21 - 1)
hi = (base + size + 2**21 - 1) & ~(2**21 - 1)
print(f"{lo:x}:{hi - lo:x}")
PY
)
log "occupying $conflict"
LD_PRELOAD=$g/liboccupy_va.so RPL_OCCUPY_VA=$conflict "$rp" replay reserve-check \
    "$work/snap/saxpy" >"$work/logs/reserve_conflict.log" 2>&1
status reserve_conflict $?
cat "$work/logs/reserve_check.log" "$work/logs/reserve_conflict.log" >&2

log "== candidates for saxpy: a changed correct body, then a wrong one"
for v in ok wrong; do
    "$rp" replay full-vm "$work/snap/saxpy" --code-object "$g/saxpy_$v.cubin" --check \
        --iterations 20 --json >"$work/json/candidate_$v.json" 2>"$work/logs/candidate_$v.log"
    status "candidate_$v" $?
    "$rp" replay full-vm "$work/snap/saxpy" --code-object "$g/saxpy_$v.cubin" --check \
        --iterations 5 >"$work/logs/candidate_text_$v.log" 2>&1
done

python3 "$bundle/summary.py" "$work" "$out" 2>&1 | tee "$out/summary.txt"
