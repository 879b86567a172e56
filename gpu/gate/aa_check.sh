#!/bin/bash
# gpu/gate/aa_check.sh BUNDLE: the gate's false-alarm rate and power on a real GPU.
#
# On the GPU machine, from the repository root, with a bundle made on the CPU
# machine by scripts/gpu-bundle.sh (rocm-perf in BUNDLE/bin,
# librpl_cupti.so in BUNDLE/lib) and the test program built there:
#   nvcc -O3 -arch=sm_90 -o BUNDLE/bin/gate_aa_kernel gpu/gate/gate_aa_kernel.cu
#   OUT=DIR gpu/gate/aa_check.sh BUNDLE
# (without BUNDLE/bin/gate_aa_kernel the script builds it with nvcc if it can).
#
# Phase 1, two-sample mode: a baseline from one run of the kernel, then
# AA_GATES/2 A/A gates (the same program again) and one gate of the 5 % slower
# variant.  Phase 2, stored-baseline mode: four more accepted runs (history of
# 5), then AA_GATES/2 A/A gates and the 5 % variant again.  Every gate is
# `rocm-perf gate -- gate_aa_kernel WORK LAUNCHES` with the defaults
# (tolerance 3 %, confidence 0.95, 30 repetitions, warm-up 1).
# $OUT gets summary.txt (false failures, caught or not, repetitions, seconds
# per gate) and results.tar.gz (baseline, every gate's JSON and JUnit).
set -u
bundle=$(cd "${1:?usage: aa_check.sh BUNDLE}" && pwd)
out=${OUT:-$PWD/out/gate}
gates=${AA_GATES:-50}
budget=${AA_BUDGET_S:-220} # A/A gates stop early (and say so) past this many seconds
reps=${AA_REPS:-30}
launches=$((reps + 1))
work=$(mktemp -d)
rp=$bundle/bin/rocm-perf
prog=$bundle/bin/gate_aa_kernel
summary=$out/summary.txt
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ROCM_PERF_CUPTI_LIB=$bundle/lib/librpl_cupti.so
mkdir -p "$out" "$work/results"
cd "$work" || exit 1

say() { echo "$*" | tee -a "$summary" >&2; }
finish() { tar -czf "$out/results.tar.gz" -C "$work" results bl 2>/dev/null; }
trap finish EXIT

say "# rocm-perf gate A/A check: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1)"
if [ ! -x "$prog" ]; then
    prog=$work/gate_aa_kernel
    nvcc -O3 -arch=sm_90 -o "$prog" "$OLDPWD/gpu/gate/gate_aa_kernel.cu" 2>>"$summary" ||
        { say "no $bundle/bin/gate_aa_kernel and nvcc failed"; exit 1; }
fi
common=(--test aa_fma --baseline-dir bl --repetitions "$reps" --warmup 1)

# gate NAME WORK: one gate; appends "NAME rc seconds" to gates.txt.
gate() {
    local name=$1 work_factor=$2 t0 t1 rc
    t0=$(date +%s%N)
    "$rp" gate "${common[@]}" --json "results/$name.json" --junit "results/$name.xml" \
        -- "$prog" "$work_factor" "$launches" >"results/$name.out" 2>"results/$name.err"
    rc=$?
    t1=$(date +%s%N)
    echo "$name $rc $(( (t1 - t0) / 1000000 ))" >>gates.txt
    return $rc
}

update() {
    "$rp" baseline update "${common[@]}" -- "$prog" 1.0 "$launches" >>updates.txt 2>&1 ||
        { say "baseline update failed: $(tail -3 updates.txt)"; exit 1; }
}

phase() {  # phase LABEL N LIMIT_S (since the start)
    local label=$1 n=$2 limit=$3 ff=0 other=0 i rc
    for i in $(seq 1 "$n"); do
        if [ $(( $(date +%s) - t_start )) -gt "$limit" ]; then
            say "$label: time budget of ${limit}s reached after $((i - 1)) A/A gates"
            n=$((i - 1))
            break
        fi
        gate "${label}_aa_$i" 1.0
        rc=$?
        if [ "$rc" -eq 1 ]; then ff=$((ff + 1)); elif [ "$rc" -ne 0 ]; then other=$((other + 1)); fi
    done
    gate "${label}_slow5" 1.05
    rc=$?
    say "$label: $n A/A gates: $ff false failure(s), $other other exit(s); 5% slower variant: exit $rc ($([ "$rc" -eq 1 ] && echo caught || echo MISSED))"
    grep -h 'median' "results/${label}_slow5.out" | head -2 | sed 's/^/    /' | tee -a "$summary" >&2
    grep -h 'confirm' "results/${label}_slow5.out" | sed 's/^/    /' | tee -a "$summary" >&2
}

t_start=$(date +%s)
update
phase two_sample $((gates / 2)) $((budget / 2))
for _ in 1 2 3 4; do update; done
phase stored_k5 $((gates - gates / 2)) "$budget"
say "repetitions per gate: $reps samples (one process launching the kernel $launches times, warm-up 1)"
awk '{ n++; s += $3; if ($3 > m) m = $3 } END { printf "seconds per gate: mean %.2f, max %.2f over %d gates\n", s / n / 1000, m / 1000, n }' gates.txt | tee -a "$summary" >&2
say "total: $(( $(date +%s) - t_start )) s"
cp gates.txt updates.txt results/ 2>/dev/null
"$rp" baseline show bl/*/aa_fma.json >>"$summary" 2>&1
