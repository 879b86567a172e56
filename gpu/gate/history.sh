#!/bin/bash
# gpu/gate/history.sh: a baseline history on a real GPU, and where a slowdown began.
#
# On the CPU machine, bundle the CLI and the CUPTI recorder (bin/ and lib/):
#   scripts/gpu-bundle.sh BUNDLE build/<dir>/src/cli/rocm-perf build/<dir>/src/tools/cupti/librpl_cupti.so
# On the GPU machine, from the repository root (needs cmake, nvcc, git):
#   OUT=DIR RPL_BUNDLE=BUNDLE gpu/gate/history.sh
#
# Steps: the perf suite (ctest/, cmake/, templates/) is copied into a scratch
# git repository with an empty baselines/ folder and configured twice there:
# as it is, and with -DRPL_PERF_SUITE_SLOW_VARIANT=ON (saxpy with uncoalesced
# accesses, under the same test name).  Then HIST_RUNS times (default 32):
# one commit in the scratch repository (from run HIST_SLOW_FROM, default 17,
# its message says the slow variant is on), then
# `ROCM_PERF_UPDATE_BASELINES=1 ctest -R '^saxpy$'` with the build of that
# state, which adds a history entry (commit, date, device, driver, GPU state)
# to baselines/sm_90/saxpy.json.  Runs stop early (and say so) past
# HIST_BUDGET_S seconds (default 240).  Finally `rocm-perf baseline trend`
# (text and JSON) and one gate of the last state.
# $OUT gets summary.txt, commits.txt (run, commit, variant), saxpy.json (the
# baseline with its history), trend.json, trend.txt and gate.json.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out/history}
bundle=${RPL_BUNDLE:-$root/.device-bundle}
runs=${HIST_RUNS:-32}
slow_from=${HIST_SLOW_FROM:-17}
budget=${HIST_BUDGET_S:-240}
rp=$bundle/bin/rocm-perf
work=$(mktemp -d)
repo=$work/repo
summary=$out/summary.txt
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
unset ROCM_PERF_UPDATE_BASELINES
mkdir -p "$out"

say() { echo "$*" | tee -a "$summary" >&2; }

say "# baseline history on the GPU: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | head -2)"
[ -x "$rp" ] || { say "missing $rp (bundle it first)"; exit 1; }
if [ ! -e /dev/nvidia0 ]; then say "no NVIDIA GPU: skipped"; exit 77; fi
say "rocm-perf: $("$rp" version 2>&1)"

mkdir -p "$repo/baselines"
cp -r "$root/ctest" "$root/cmake" "$root/templates" "$repo/"
printf 'fast\n' >"$repo/variant.txt"
git -C "$repo" init -q -b main
git -C "$repo" config user.name "rocm-perf check"
git -C "$repo" config user.email "check@localhost"
git -C "$repo" add -A
git -C "$repo" commit -q -m "perf suite"
"$rp" gpus --ctest-resource-spec "$work/spec.json" >/dev/null 2>&1

build() { # build DIR [-D...]
    local dir=$1
    shift
    cmake -S "$repo/ctest" -B "$dir" -DROCM_PERF_EXECUTABLE="$rp" "$@" >>"$work/build.log" 2>&1 &&
        cmake --build "$dir" -j"$(nproc)" >>"$work/build.log" 2>&1
}
if ! build "$work/fast" || ! build "$work/slow" -DRPL_PERF_SUITE_SLOW_VARIANT=ON; then
    say "configure/build failed:"; tail -30 "$work/build.log" | tee -a "$summary"; exit 1
fi

t0=$(date +%s)
done_runs=0
for ((i = 1; i <= runs; i++)); do
    if ((i >= slow_from)); then variant=slow; else variant=fast; fi
    printf '%s\nrun %d\n' "$variant" "$i" >"$repo/variant.txt"
    msg="run $i"
    ((i == slow_from)) && msg="run $i: switch on the slow saxpy (RPL_PERF_SUITE_SLOW_VARIANT=ON)"
    git -C "$repo" commit -q -am "$msg"
    sha=$(git -C "$repo" rev-parse HEAD)
    echo "$i $sha $variant" >>"$out/commits.txt"
    ROCM_PERF_UPDATE_BASELINES=1 ctest --test-dir "$work/$variant" -R '^saxpy$' --timeout 120 \
        --resource-spec-file "$work/spec.json" >"$work/ctest_$i.log" 2>&1 ||
        say "run $i: ctest failed: $(tail -3 "$work/ctest_$i.log" | tr '\n' ' ')"
    done_runs=$i
    if (($(date +%s) - t0 > budget)); then
        say "stopped after run $i of $runs: past HIST_BUDGET_S=$budget s"
        break
    fi
done
say "runs: $done_runs in $(($(date +%s) - t0)) s; the slow variant from run $slow_from, commit $(awk -v r="$slow_from" '$1 == r {print $2}' "$out/commits.txt")"

bl=$repo/baselines/sm_90/saxpy.json
cp "$bl" "$out/saxpy.json" 2>/dev/null || say "no baseline written"
"$rp" baseline trend --test saxpy --baseline-dir "$repo/baselines" >"$out/trend.txt" 2>&1
"$rp" baseline trend --test saxpy --baseline-dir "$repo/baselines" --json >"$out/trend.json" 2>>"$summary"
cat "$out/trend.txt" | tee -a "$summary" >&2
"$rp" gate --test saxpy --baseline-dir "$repo/baselines" --kernel saxpy --json "$out/gate.json" \
    -- "$(ls "$work/slow"/saxpy-cuda* 2>/dev/null | head -1)" >>"$summary" 2>&1
say "gate of the last state: exit $?"
python3 - "$out/trend.json" "$out/commits.txt" "$slow_from" <<'PY' | tee -a "$summary" >&2
import json, sys
trend = json.load(open(sys.argv[1]))
commits = {int(r): c for r, c, _ in (l.split() for l in open(sys.argv[2]))}
want = commits.get(int(sys.argv[3]))
for k in trend["kernels"]:
    cps = [c for c in k["change_points"] if c["material"]]
    states = [h["gpu_state"] for h in k["history"]]
    rec = sum(1 for s in states if s)
    clocks = sorted({s["sm_clock_mhz"] for s in states if s})
    print(f"{k['name']}: {k['entries']} entries, GPU state recorded in {rec}, SM clocks {clocks}")
    for c in cps:
        hit = "THE SWITCH" if c["commits"]["first_after"] == want else "not the switch"
        print(f"  change point at entry {c['index']}: {100 * c['size']:+.1f}%, p {c['p_value']:.3f}, "
              f"began at {c['commits']['first_after']} ({hit})")
    print("trend names the commit of the switch:", any(c["commits"]["first_after"] == want for c in cps))
PY
