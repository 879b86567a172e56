#!/bin/bash
# gpu/profile/counter_times.sh BUNDLE: on an NVIDIA GPU,
#  1. `rocm-perf gpus` names the architecture of every NVIDIA GPU (sm_90 on an
#     H100 or H200), not "-";
#  2. `rocm-perf profile` with counters takes its timeline from a trace-only run:
#     its span and the GEMM's median are those of a `--counters none` run (within
#     25 %), while the counter run's own database, analysed alone, shows the
#     distortion (its span is printed for comparison); the counters are there
#     (roofline.json has FLOPs) and the output says where the times come from;
#  3. the seed spellings: `rocm-perf profile PROGRAM ARGS --json --quiet` prints
#     profile.json alone, `rocm-perf profile PROGRAM ARGS --no-rocprof` runs it plainly.
#
# BUNDLE: scripts/gpu-bundle.sh BUNDLE build/dev/src/cli/rocm-perf \
#         build/dev/src/tools/cupti/librpl_cupti.so
# The test program, gpu/cupti/gemm_tiled.cu (memsets and 5 GEMMs), is built here
# with nvcc.  $OUT gets summary.txt (the verdicts) and results.tar.gz (the output
# folders and logs).  Exit 0 when every check passed, 1 otherwise.
set -u
bundle=$(cd "${1:?usage: counter_times.sh BUNDLE}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/out/profile}
work=$(mktemp -d)
rp=$bundle/bin/rocm-perf
export ROCM_PERF_CUPTI_LIB=$bundle/lib/librpl_cupti.so
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out" "$work/logs"
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary" >&2; }
trap 'tar -czf "$out/results.tar.gz" -C "$work" . 2>/dev/null' EXIT
status=0
check() { # check NAME CONDITION-EXIT-CODE DETAIL
    if [ "$2" -eq 0 ]; then say "PASS $1: $3"; else say "FAIL $1: $3"; status=1; fi
}

say "# profile counter-times check: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
nvcc -O2 -arch=sm_90 -I"$here/../cupti" "$here/../cupti/gemm_tiled.cu" -o "$work/gemm_tiled" \
    >"$work/logs/nvcc.log" 2>&1 || { say "FAIL nvcc: $(tail -3 "$work/logs/nvcc.log")"; exit 1; }
prog=$work/gemm_tiled

# 1. gpus
"$rp" gpus >"$work/gpus.txt" 2>"$work/logs/gpus.err"
say "$(cat "$work/gpus.txt")"
awk 'NR > 1 && $2 == "nvidia" { n++; if ($3 !~ /^sm_[0-9]+$/) bad++ } END { exit !(n > 0 && bad == 0) }' \
    "$work/gpus.txt"
check gpus_arch $? "every NVIDIA row has an sm_NN architecture"

# 2. counter run times
cd "$work" || exit 1
"$rp" profile --backend cupti --counters none -o T -- "$prog" 1024 >T.txt 2>logs/T.err
check trace_only_run $? "profile --counters none"
"$rp" profile --backend cupti -o C -- "$prog" 1024 >C.txt 2>logs/C.err
check counter_run $? "profile (roofline counters)"
grep -q '^times: from a run without counters' C.txt
check says_so $? "$(grep '^times:' C.txt)"
[ -d C/cupti/trace_only ]
check trace_only_folder $? "C/cupti/trace_only exists"
raw=$(ls C/cupti/*/*_results.db 2>/dev/null | grep -v trace_only | head -1)
"$rp" analyze "$raw" --json -q >raw.json 2>logs/raw.err
python3 - T/profile.json C/profile.json raw.json C/roofline.json <<'EOF' >>"$summary" 2>&1
import json, sys
t, c, raw, roof = (json.load(open(p)) for p in sys.argv[1:5])
def span(d): return d["totals"]["span"]["duration_ns"]
def gemm(d): return [k for k in d["kernels"] if "gemm_tiled" in k["name"]][0]["median_ns"]
ok = True
print(f"span: counters none {span(t)/1e6:.3f} ms, with counters (times from trace_only) "
      f"{span(c)/1e6:.3f} ms, the counter run's own timeline {span(raw)/1e6:.3f} ms")
print(f"gemm median: none {gemm(t)/1e3:.1f} us, with counters {gemm(c)/1e3:.1f} us, "
      f"counter run {gemm(raw)/1e3:.1f} us")
if not 0.75 < span(c) / span(t) < 1.25:
    print("FAIL span_from_trace_only: the counter profile's span is not a trace-only run's"); ok = False
else:
    print("PASS span_from_trace_only")
if not 0.75 < gemm(c) / gemm(t) < 1.25:
    print("FAIL gemm_median"); ok = False
else:
    print("PASS gemm_median")
flops = [k.get("flops") or 0 for k in roof["kernels"] if "gemm_tiled" in k["kernel"]]
if not flops or flops[0] <= 0:
    print("FAIL counters_kept: no FLOPs for gemm_tiled in roofline.json"); ok = False
else:
    print(f"PASS counters_kept: gemm_tiled {flops[0]:.3e} FLOP")
sys.exit(0 if ok else 1)
EOF
[ $? -eq 0 ] || status=1

# 3. seed spellings
"$rp" profile "$prog" 1024 --backend cupti --counters none -o S --json --quiet >S.json 2>logs/S.err
python3 -c 'import json,sys; d=json.load(open("S.json")); sys.exit(d.get("schema_version") is None)'
check seed_json $? "profile PROGRAM ARGS --json --quiet: stdout is profile.json"
# --quiet silences rocm-perf's own lines; the program's output goes to stderr (--json).
if grep -q '^rocm-perf' logs/S.err; then
    status=1
    say "FAIL seed_quiet: $(grep -m2 '^rocm-perf' logs/S.err)"
else
    say "PASS seed_quiet: no rocm-perf line on stderr with --quiet"
fi
"$rp" profile "$prog" 512 --no-rocprof >P.txt 2>logs/P.err
check seed_no_rocprof $? "$(tail -1 P.txt)"

say "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
exit $status
