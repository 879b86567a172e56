#!/bin/bash
# gpu/optimize/check.sh: the GPU acceptance list of issue 14 for `rocm-perf optimize`,
# in one run on an NVIDIA GPU (docs/validation/optimize-gpu.md).
#
# The bundle (gpu/optimize/bundle.sh, by default .device-optimize/, RPL_BUNDLE) holds
# bin/rocm-perf, lib/librpl_cupti.so and the libraries the machine lacks, gpu/ with the
# sources, this script, summary.py and lib.sh (gpu/lib.sh: the set-up shared with
# gpu/llm/check.sh).  On the GPU machine, from the repository root:
#   OUT=DIR bash .device-optimize/check.sh
#
# A scratch git repository gets the sources; then, each with its own artifacts:
#   rules      optimize unroll_kernels.cu, kernels ranked from the profile: gather_sum
#              (a `#pragma unroll 1` latency-bound loop: unrolling should be accepted and
#              committed with its numbers) and stream_scale (a bandwidth-bound grid-stride
#              loop: an honest rejection expected)
#   hand       --candidate gather_sum_hand.cu (loads issued ahead, same sum order): accepted
#   wrong      --candidate: saxpy with a wrong kernel: rejected by the replay comparison
#   same       --candidate: saxpy with only a comment changed (A/A): not significant (its
#              CI holds 1); its times are those of a perf-suite kernel
# The user's checkout is hashed before and after.  summary.py prints the table
# (decisions, speedups, time per candidate split into build, correctness, measurement)
# and writes $OUT/results.json.  $OUT holds five files: machine.txt, branches.txt,
# summary.txt, results.json and logs.tar.gz (every run's output, JUnit, summary, JSON log,
# candidates' sources and build logs, snapshot manifests).
set -u
gpu_lib=$(dirname "$0")/lib.sh                          # in the bundle
[ -f "$gpu_lib" ] || gpu_lib=$(dirname "$0")/../lib.sh  # in the repository
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$gpu_lib"
check_start optimize
rounds=${RPL_ROUNDS:-8}

# shellcheck disable=SC2119 # no lines beyond the common ones
check_machine
check_need_gpu
scratch_repo "$bundle/gpu/unroll_kernels.cu" "$bundle/gpu/saxpy.hip" "$bundle/gpu/rpl_harness.h"

# The candidates made from the committed sources.
sed 's|y\[i\] = a \* x\[i\] + y\[i\];|y[i] = a * x[i] + 0.5f * y[i]; // wrong on purpose|' \
    "$repo/src/saxpy.hip" >"$work/saxpy_wrong.hip"
sed 's|    y\[i\] = a \* x\[i\] + y\[i\];|    y[i] = a * x[i] + y[i]; // only a comment changed|' \
    "$repo/src/saxpy.hip" >"$work/saxpy_same.hip"
cp "$bundle/gpu/gather_sum_hand.cu" "$work/"

# run NAME EXPECTED-EXIT ARGS...: one optimize run, its artifacts' reports kept under $out/NAME
run() {
    local name=$1 want=$2
    shift 2
    log "== $name: rocm-perf optimize $*"
    local t0=$SECONDS
    timeout -k 10 150 "$rp" optimize "$@" --artifacts "$work/art/$name" --rounds "$rounds" \
        --seed-flag --seed >"$work/logs/$name.out" 2>"$work/logs/$name.err"
    local rc=$?
    echo "$rc" >"$work/logs/$name.exit"
    log "   exit $rc (expected $want) in $((SECONDS - t0)) s"
    tail -5 "$work/logs/$name.out" >&2
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || tail -3 "$work/logs/$name.err" >&2
    # The reports, not the snapshots (tens of MiB): into logs.tar.gz ($OUT keeps few files).
    mkdir -p "$work/logs/$name"
    (cd "$work/art/$name" 2>/dev/null && cp -r junit.xml summary.md optimize-log.json \
        original.build.log snapshots/*.manifest candidates "$work/logs/$name/" 2>/dev/null)
    find "$work/logs/$name" -name profile -type d -prune -exec rm -rf {} + 2>/dev/null
}

run rules 0 "$repo/src/unroll_kernels.cu" "./unroll_kernels --reps 20" --auto-approve \
    --max-kernels 2
run hand 0 "$repo/src/unroll_kernels.cu" "./unroll_kernels --reps 20" --auto-approve \
    --candidate "$work/gather_sum_hand.cu"
run wrong 1 "$repo/src/saxpy.hip" "./saxpy --reps 20 --size 4194304" --auto-approve \
    --candidate "$work/saxpy_wrong.hip"
run same 1 "$repo/src/saxpy.hip" "./saxpy --reps 20 --size 4194304" --auto-approve \
    --candidate "$work/saxpy_same.hip"

# The branches and their trailers, read back.
for b in $(git -C "$repo" for-each-ref --format='%(refname:short)' refs/heads/rocm-perf/); do
    echo "== $b"
    git -C "$repo" log -1 --format=%B "$b"
    git -C "$repo" diff --stat main "$b"
done >"$out/branches.txt" 2>&1
check_untouched "$out/branches.txt"
git -C "$repo" status --short >>"$out/branches.txt"
python3 "$bundle/summary.py" "$work/logs" "$out/results.json" | tee "$out/summary.txt"
