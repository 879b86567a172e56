#!/bin/bash
# gpu/package/perf_suite.sh: the perf suite (ctest/) on an NVIDIA GPU.
#
# On the CPU machine, bundle the CLI and the CUPTI recorder (bin/ and lib/):
#   scripts/gpu-bundle.sh .device-bundle \
#       build/<dir>/src/cli/rocm-perf build/<dir>/src/tools/cupti/librpl_cupti.so
# On the GPU machine, from the repository root (needs cmake, nvcc, bash):
#   gpu/package/perf_suite.sh          # writes into $OUT (default out/package)
#
# Steps: `rocm-perf gpus --ctest-resource-spec` writes the resource spec;
# ctest/ is configured as a project of its own with ROCM_PERF_EXECUTABLE
# pointing into the bundle (nvcc builds the sm_90 programs; no hipcc there);
# 1. the committed static sm_90 baselines are checked (ctest -L static);
# 2. ROCM_PERF_UPDATE_BASELINES=1 ctest -L gpu records the runtime sections;
# 3. ctest -L perf must pass against them;
# 4. the slower saxpy (RPL_PERF_SUITE_SLOW_VARIANT=ON) must fail its runtime
#    gate against saxpy's baseline.
# $OUT gets summary.txt, baselines_sm_90/*.json (copy them to baselines/sm_90/),
# the JUnit files of each pass and reports.tar.gz (gate reports and logs).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out/package}
bundle=${RPL_BUNDLE:-$root/.device-bundle}
rp=$bundle/bin/rocm-perf
work=$(mktemp -d)
bld=$work/build
summary=$out/summary.txt
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
unset ROCM_PERF_UPDATE_BASELINES
mkdir -p "$out" "$work/logs"

say() { echo "$*" | tee -a "$summary" >&2; }

say "# perf suite on the GPU: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | head -4)"
say "nvcc: $(nvcc --version 2>&1 | tail -1)"
say "cmake: $(cmake --version 2>&1 | head -1)"
[ -x "$rp" ] || { say "missing $rp (bundle it first)"; exit 1; }
say "rocm-perf: $("$rp" version 2>&1)"
"$rp" gpus 2>&1 | tee -a "$summary" >&2
"$rp" gpus --ctest-resource-spec "$work/spec.json" 2>&1 | tee -a "$summary" >&2
say "resource spec: $(tr -d ' \n\t' <"$work/spec.json")"
ngpus=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["local"][0]["gpus"]))' "$work/spec.json")
((ngpus > 0)) || ngpus=1

configure() { # configure [-D...]: configure and build ctest/ into $bld
    cmake -S "$root/ctest" -B "$bld" -DROCM_PERF_EXECUTABLE="$rp" "$@" >>"$work/logs/configure.log" 2>&1 &&
        cmake --build "$bld" -j"$(nproc)" >>"$work/logs/build.log" 2>&1
}

suite() { # suite NAME [ENV=...] -- CTEST_ARGS...: one ctest pass; its status
    local name=$1 rc
    shift
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" ctest --test-dir "$bld" --timeout 300 -j"$ngpus" \
        --resource-spec-file "$work/spec.json" --output-on-failure \
        --output-junit "$out/junit_$name.xml" "$@" >"$work/logs/ctest_$name.log" 2>&1
    rc=$?
    say "## $name: ctest exit status $rc"
    grep -E "tests passed|Test +#|Skipped|Failed" "$work/logs/ctest_$name.log" | tee -a "$summary" >&2
    return $rc
}

junit_status() { # junit_status FILE TEST: run (passed), fail, notrun (skipped) or missing
    python3 - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    cases = {c.get("name"): c.get("status") for c in ET.parse(sys.argv[1]).iter("testcase")}
except (OSError, ET.ParseError):
    cases = {}
print(cases.get(sys.argv[2], "missing"))
PY
}

if ! configure; then
    say "configure/build failed:"; tail -30 "$work/logs/configure.log" "$work/logs/build.log" | tee -a "$summary"
    exit 1
fi
say "built: $(cd "$bld" && ls *-cuda *-hip 2>/dev/null | tr '\n' ' ')"

suite static_committed -- -L '^static$'
suite record ROCM_PERF_UPDATE_BASELINES=1 -- -L '^gpu$'
grep -h "updated baseline\|runtime" "$work/logs/ctest_record.log" | head -40 >>"$summary"
suite gate -- -L '^perf$'
gate_rc=$?
grep -E "gate '|fail|warn|improved|pass " "$work/logs/ctest_gate.log" | grep -v ATTACHMENT | head -60 >>"$summary"

# The slower variant under saxpy's name.
if configure -DRPL_PERF_SUITE_SLOW_VARIANT=ON; then
    suite slow_variant -- -R '^saxpy$'
    slow_rc=$?
    grep -v ATTACHMENT "$work/logs/ctest_slow_variant.log" | grep -iE "gate|fail|median|ratio" | head -30 >>"$summary"
    status=$(junit_status "$out/junit_slow_variant.xml" saxpy)
    case $slow_rc:$status in
    8:fail) say "slow variant: its runtime gate failed, as it must" ;;
    *) say "slow variant: NOT caught (ctest status $slow_rc, saxpy $status)" ;;
    esac
    cp -r "$bld/rocm-perf/saxpy" "$work/slow_variant_reports" 2>/dev/null
    configure -DRPL_PERF_SUITE_SLOW_VARIANT=OFF || say "reconfigure without the variant failed"
else
    say "slow variant: build failed"
fi
say "gate pass exit status: $gate_rc"

mkdir -p "$out/baselines_sm_90"
cp "$root"/baselines/sm_90/*.json "$out/baselines_sm_90/" 2>/dev/null
say "baselines: $(ls "$out/baselines_sm_90" | tr '\n' ' ')"
cp -r "$bld/rocm-perf" "$work/reports" 2>/dev/null
tar -czf "$out/reports.tar.gz" -C "$work" logs reports slow_variant_reports 2>/dev/null
tail -80 "$summary"
