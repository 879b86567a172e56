#!/bin/bash
# gpu/llm/check.sh: the GPU acceptance of issue 15 for `rocm-perf llm-optimize`, in one
# run on an NVIDIA GPU (docs/validation/llm-optimize-gpu.md).  No network: the model is
# the stand-in server (python3, 127.0.0.1) answering from answers/.
#
# The bundle (gpu/llm/bundle.sh, by default .device-llm/, RPL_BUNDLE) holds bin/rocm-perf,
# lib/ (librpl_cupti.so and what the machine lacks), gpu/ (saxpy_slow.hip: the perf
# suite's saxpy with its uncoalesced variant on; twokernel.cu; rpl_harness.h),
# templates/llm, answers/{six,shift}, standin_server.py, this script, summary.py and
# lib.sh (gpu/lib.sh: the set-up shared with gpu/optimize/check.sh).
# On the GPU machine, from the repository root:  OUT=DIR bash .device-llm/check.sh
#
#   six    the six-answer script on saxpy_slow.hip, built and run for real: a reply that
#          does not compile and its repair, a signature change, a wrong result, a cheat
#          (writes nothing), a slower and a faster kernel; only the last is committed,
#          with its measured speedup and CI.  Its prompts carry the roofline and
#          bottleneck facts of a counter profile made first (`rocm-perf profile`,
#          then --analysis; the profile's files go into six.tar.gz under facts/)
#   shift  twokernel.cu: `gather` dominates; its coalesced version is accepted, the
#          application is ranked again, `scale_rows` is now dominant and the loop
#          retargets; the second answer speeds up scale_rows
# A sentinel API key is sent to the server; no file under $OUT, the artifacts or the
# repository and nothing printed may hold it.  summary.py prints the table and writes
# $OUT/results.json; $OUT also gets summary.txt, machine.txt, branches.txt, key.txt,
# six.tar.gz and shift.tar.gz (reports, transcript, candidates, requests, output) and
# logs.tar.gz: 8 files.  Exit 0 when every check passes, 1 when one fails, 77
# without a GPU.  Takes about 4-6 minutes.
set -u
gpu_lib=$(dirname "$0")/lib.sh                          # in the bundle
[ -f "$gpu_lib" ] || gpu_lib=$(dirname "$0")/../lib.sh  # in the repository
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$gpu_lib"
check_start llm
rounds=${RPL_ROUNDS:-6}
key=rpl-SENTINEL-gpu-llm-3e8b1f27
export ROCM_PERF_TEMPLATES=$bundle/templates
server_pid=
# shellcheck disable=SC2317 # run by the EXIT trap
finish() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    check_finish
}
trap finish EXIT

check_machine "python3: $(python3 --version 2>&1)"
check_need_gpu
scratch_repo "$bundle/gpu/saxpy_slow.hip" "$bundle/gpu/twokernel.cu" "$bundle/gpu/rpl_harness.h"

# run NAME ARGS...: one llm-optimize run with its server; reports kept under $out/NAME
run() {
    local name=$1
    shift
    serve "$name"
    log "== $name: rocm-perf llm-optimize $*"
    local t0=$SECONDS
    OPENAI_API_KEY=$key timeout -k 10 330 "$rp" llm-optimize "$@" --base-url "$url" \
        --model standin-model --artifacts "$work/art/$name" --rounds "$rounds" \
        --seed-flag --seed --auto-approve >"$work/logs/$name.out" 2>"$work/logs/$name.err"
    local rc=$?
    echo "$rc" >"$work/logs/$name.exit"
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=
    log "   exit $rc in $((SECONDS - t0)) s"
    tail -12 "$work/logs/$name.out" >&2
    [ "$rc" = 0 ] || tail -5 "$work/logs/$name.err" >&2
    mkdir -p "$work/keep/$name"
    (cd "$work/art/$name" 2>/dev/null && cp -r junit.xml summary.md optimize-log.json \
        llm-transcript.jsonl candidates "$work/keep/$name/" 2>/dev/null)
    find "$work/keep/$name" -name profile -type d -prune -exec rm -rf {} + 2>/dev/null
    cp "$work/logs/$name".* "$work/keep/$name/" 2>/dev/null
}

# The facts of --analysis: saxpy_slow built as the pipeline builds it, profiled with the
# roofline counters; without them the six run goes on without --analysis (and fails its check).
facts=()
log "== facts: rocm-perf profile (roofline counters) of saxpy_slow"
if nvcc -O3 -arch=native -x cu -o "$work/saxpy_prof" "$repo/src/saxpy_slow.hip" \
        >"$work/logs/facts.build" 2>&1 &&
    "$rp" profile -q --out "$work/facts" -- "$work/saxpy_prof" --reps 5 --size 4194304 \
        >"$work/logs/facts.out" 2>"$work/logs/facts.err"; then
    facts=(--analysis "$work/facts")
else
    log "   the profile failed: six runs without --analysis"
    tail -5 "$work/logs/facts.build" "$work/logs/facts.err" >&2
fi
run six "$repo/src/saxpy_slow.hip" "./saxpy_slow --reps 20 --size 4194304" --max-iters 5 \
    "${facts[@]}"
mkdir -p "$work/keep/six/facts"
cp "$work/facts"/*.json "$work/logs"/facts.* "$work/keep/six/facts/" 2>/dev/null
run shift "$repo/src/twokernel.cu" "./twokernel --reps 20" --max-iters 2

for b in $(git -C "$repo" for-each-ref --format='%(refname:short)' refs/heads/rocm-perf/); do
    echo "== $b"
    git -C "$repo" log --format='--- %h%n%B' "main..$b"
    git -C "$repo" diff --stat main "$b"
done >"$out/branches.txt" 2>&1
check_untouched "$out/branches.txt"
# The key: in no file written and in nothing printed.
if grep -rlF "$key" "$out" "$work/art" "$work/keep" "$work/logs"/*.out "$work/logs"/*.err "$repo/src" \
    >"$work/key_hits.txt" 2>/dev/null || git -C "$repo" log --all -p | grep -qF "$key"; then
    echo "key leaked: YES ($(tr '\n' ' ' <"$work/key_hits.txt"))" | tee "$out/key.txt" >&2
else
    echo "key leaked: no" | tee "$out/key.txt" >&2
fi
python3 "$bundle/summary.py" "$work/keep" "$out" | tee "$out/summary.txt"
status=${PIPESTATUS[0]}
# At most 8 files come back from $OUT: one archive per run.
for name in six shift; do
    tar -czf "$out/$name.tar.gz" -C "$work/keep" "$name" 2>/dev/null
done
exit "$status"
