#!/bin/bash
# gpu/cupti/floor.sh BUNDLE: the CUPTI recorder's trace-only overhead against
# CUPTI's own cost (the floor), in one command.
#
# The goal (docs/validation/cupti-recorder.md, "Overhead"): on a launch-bound
# loop the recorder costs at most CUPTI's floor + 5 %, i.e. per round
#   (recorder loop - floor loop) / bare loop <= 0.05,
# judged on the median over the rounds, for kernel records alone
# (ROCM_PERF_CUPTI_API=none against a CUPTI client with concurrent-kernel
# records) and with runtime API records (the recorder's default against the
# same client with CUPTI_FLOOR_API=runtime).
#
# On the build machine (gpu/README.md):
#   scripts/gpu-bundle.sh .device-bundle build/<dir>/src/tools/cupti/librpl_cupti.so
# On the GPU machine, from the repository root (needs nvcc):
#   OUT=DIR gpu/cupti/floor.sh .device-bundle
# BUNDLE/bin/tiny_kernel_launches and BUNDLE/lib/libcupti_floor.so are used
# when present, else built here with nvcc from gpu/cupti/tiny_kernel_launches.cu
# and gpu/cupti/cupti_floor.c (CUPTI alone: records enabled, thrown away).
#
# Knobs: FLOOR_ROUNDS (9), FLOOR_LAUNCHES (100000), NVCC, CUDA_HOME.
# Each round runs every configuration once, in a rotated order (the machine
# drifts), each a fresh process: bare, floor, floor+runtime, recorder without
# API records, recorder (default). The loop time is what the program measures
# around its launch loop; wall is the whole process (start-up, database).
# $OUT/floor gets runs.txt (every run), summary.txt (medians, ratios, verdict)
# and logs. Exit 0 goal met, 1 not met, 2 usage, 3 a build or run failed,
# 77 no NVIDIA GPU. About 2 minutes at the defaults on an H100.
set -u

if [ $# -ne 1 ]; then
    echo "usage: OUT=DIR gpu/cupti/floor.sh BUNDLE" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$(cd "$1" 2>/dev/null && pwd) || { echo "floor: no bundle '$1'" >&2; exit 2; }
out=${OUT:-out}/floor
rounds=${FLOOR_ROUNDS:-9}
launches=${FLOOR_LAUNCHES:-100000}
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=${NVCC:-$(command -v nvcc || echo "$cuda/bin/nvcc")}
lib=$bundle/lib/librpl_cupti.so

if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "floor: no NVIDIA GPU (nvidia-smi -L failed)" >&2
    exit 77
fi
[ -f "$lib" ] || { echo "floor: $lib missing (see gpu/README.md)" >&2; exit 2; }
mkdir -p "$out/bin" "$out/logs"
[ -f "$bundle/env.sh" ] && . "$bundle/env.sh"

tiny=$bundle/bin/tiny_kernel_launches
if [ ! -x "$tiny" ]; then
    tiny=$out/bin/tiny_kernel_launches
    "$nvcc" -O2 -arch=native -o "$tiny" "$root/gpu/cupti/tiny_kernel_launches.cu" \
        >"$out/logs/build.log" 2>&1 || { echo "floor: nvcc failed (logs/build.log)" >&2; exit 3; }
fi
floor=$bundle/lib/libcupti_floor.so
if [ ! -f "$floor" ]; then
    floor=$out/bin/libcupti_floor.so
    "$nvcc" -O2 -shared -Xcompiler -fPIC -I"$cuda/include" -I"$cuda/extras/CUPTI/include" \
        -o "$floor" "$root/gpu/cupti/cupti_floor.c" -L"$cuda/lib64" \
        -L"$cuda/extras/CUPTI/lib64" -lcupti >>"$out/logs/build.log" 2>&1 ||
        { echo "floor: building libcupti_floor.so failed (logs/build.log)" >&2; exit 3; }
fi

# run LABEL [ENV...]: one process; appends "label round loop_ms wall_ms" to runs.txt.
run() {
    local label=$1 t0 t1 line db=$out/db
    shift
    rm -rf "$db"
    t0=$(date +%s%N)
    line=$(env ROCM_PERF_CUPTI_OUTPUT="$db" "$@" timeout -k 5 120 "$tiny" "$launches" \
           2>>"$out/logs/$label.log")
    t1=$(date +%s%N)
    rm -rf "$db"
    line=$(echo "$line" | sed -n 's/.*loop_ms=\([0-9.]*\).*/\1/p')
    if [ -z "$line" ]; then
        echo "floor: $label failed in round $round (logs/$label.log)" >&2
        exit 3
    fi
    echo "$label $round $line $(((t1 - t0) / 1000000))" >>"$out/runs.txt"
}

configs=(bare floor floor_runtime recorder_noapi recorder)
config() {
    case $1 in
    bare) run bare ;;
    floor) run floor CUDA_INJECTION64_PATH="$floor" ;;
    floor_runtime) run floor_runtime CUDA_INJECTION64_PATH="$floor" CUPTI_FLOOR_API=runtime ;;
    recorder_noapi) run recorder_noapi CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_API=none ;;
    recorder) run recorder CUDA_INJECTION64_PATH="$lib" ;;
    esac
}

round=0
: >"$out/runs.txt"
run warmup # first CUDA start on a fresh machine is slow; not counted
: >"$out/runs.txt"
for round in $(seq "$rounds"); do
    for i in "${!configs[@]}"; do
        config "${configs[$(((i + round) % ${#configs[@]}))]}"
    done
done

{
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
    echo "tiny_kernel_launches $launches, $rounds rounds interleaved"
    python3 - "$out/runs.txt" <<'PY'
import statistics, sys

runs = {}
for line in open(sys.argv[1]):
    label, rnd, loop, wall = line.split()
    runs.setdefault(label, {})[int(rnd)] = (float(loop), float(wall))
bare = runs["bare"]
med = lambda xs: statistics.median(xs)
print(f"{'configuration':16} {'loop ms (min-max)':>26} {'loop x':>7} {'wall ms':>8} {'wall x':>7}")
for label in ("bare", "floor", "floor_runtime", "recorder_noapi", "recorder"):
    r = runs[label]
    loops = [v[0] for v in r.values()]
    walls = [v[1] for v in r.values()]
    print(f"{label:16} {med(loops):10.1f} ({min(loops):6.1f}-{max(loops):6.1f}) "
          f"{med(loops) / med(v[0] for v in bare.values()):7.3f} {med(walls):8.0f} "
          f"{med(walls) / med(v[1] for v in bare.values()):7.3f}")
ok = True
for rec, flo in (("recorder_noapi", "floor"), ("recorder", "floor_runtime")):
    # Paired per round: the recorder's excess over the floor, in bare loops.
    ex = sorted((runs[rec][k][0] - runs[flo][k][0]) / bare[k][0]
                for k in bare if k in runs[rec] and k in runs[flo])
    m = med(ex)
    ok &= m <= 0.05
    print(f"{rec} - {flo}: {100 * m:+.1f}% of the bare loop (median of {len(ex)} rounds, "
          f"range {100 * ex[0]:+.1f}% to {100 * ex[-1]:+.1f}%): "
          f"{'met' if m <= 0.05 else 'NOT met'} (goal <= floor + 5%)")
print("goal met" if ok else "goal NOT met")
sys.exit(0 if ok else 1)
PY
} >"$out/summary.txt" 2>&1
rc=$?
cat "$out/summary.txt"
exit $rc
