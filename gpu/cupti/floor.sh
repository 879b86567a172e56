#!/bin/bash
# gpu/cupti/floor.sh BUNDLE: the CUPTI recorder's trace-only overhead against
# CUPTI's own cost (the floor), in one command.
#
# The goal (docs/validation/cupti-recorder.md, "Overhead"): on a launch-bound
# loop the recorder costs at most CUPTI's floor + 5 %, i.e. per round
#   (recorder loop - floor loop) / bare loop <= 0.05,
# judged on the median over the rounds.  The floor is a CUPTI client that
# asks for the same records as the recorder and throws them away unread
# (gpu/cupti/cupti_floor.c): for the recorder without API records
# (ROCM_PERF_CUPTI_API=none) kernels, copies and memsets ("floor_gpu"); for
# its default, also runtime API calls, synchronisations and CUDA events
# ("floor_full").  The kernel-records-only floor ("floor", and "floor_runtime"
# with runtime records) is shown beside them.
#
# On the build machine (gpu/README.md):
#   scripts/gpu-bundle.sh .device-bundle build/<dir>/src/tools/cupti/librpl_cupti.so
# On the GPU machine, from the repository root (needs nvcc):
#   OUT=DIR gpu/cupti/floor.sh .device-bundle
# BUNDLE/bin/tiny_kernel_launches and BUNDLE/lib/libcupti_floor.so are used
# when present, else built here with nvcc from gpu/cupti/tiny_kernel_launches.cu
# and gpu/cupti/cupti_floor.c.
#
# Knobs: FLOOR_ROUNDS (9), FLOOR_LAUNCHES (100000), NVCC, CUDA_HOME.
# FLOOR_PARTS=1 also runs the kernel-records floor with each of the other
# things the recorder asks of CUPTI (cupti_floor.c's CUPTI_FLOOR_PARTS:
# clock, kinds, subscribe, threadid, buffers) and prints what each costs over
# it; FLOOR_PARTS="LIST" (space-separated, e.g. "memcpy memset sync event")
# measures those parts instead.
# Each round runs every configuration once, in a rotated order (the machine
# drifts), each a fresh process. The loop time is what the program measures
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

configs=(bare floor floor_gpu floor_runtime floor_full recorder_noapi recorder)
parts=()
case ${FLOOR_PARTS:-0} in
0) ;;
1) parts=(clock kinds subscribe threadid buffers) ;;
*) read -r -a parts <<<"$FLOOR_PARTS" ;;
esac
for p in "${parts[@]}"; do
    configs+=("part_$p")
done
config() {
    case $1 in
    part_*) run "$1" CUDA_INJECTION64_PATH="$floor" CUPTI_FLOOR_PARTS="${1#part_}" ;;
    bare) run bare ;;
    floor) run floor CUDA_INJECTION64_PATH="$floor" ;;
    floor_gpu) run floor_gpu CUDA_INJECTION64_PATH="$floor" CUPTI_FLOOR_PARTS=memcpy,memset ;;
    floor_runtime) run floor_runtime CUDA_INJECTION64_PATH="$floor" CUPTI_FLOOR_API=runtime ;;
    floor_full) run floor_full CUDA_INJECTION64_PATH="$floor" CUPTI_FLOOR_API=runtime \
        CUPTI_FLOOR_PARTS=memcpy,memset,sync,event ;;
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
    python3 - "$out/runs.txt" "${parts[*]}" <<'PY'
import random, statistics, sys

runs = {}
for line in open(sys.argv[1]):
    label, rnd, loop, wall = line.split()
    runs.setdefault(label, {})[int(rnd)] = (float(loop), float(wall))
bare = runs["bare"]
med = lambda xs: statistics.median(xs)
print(f"{'configuration':16} {'loop ms (min-max)':>26} {'loop x':>7} {'wall ms':>8} {'wall x':>7}")
labels = ["bare", "floor", "floor_gpu", "floor_runtime", "floor_full", "recorder_noapi",
          "recorder"]
parts = sys.argv[2].split()
labels += ["part_" + p for p in parts]
for label in labels:
    r = runs[label]
    loops = [v[0] for v in r.values()]
    walls = [v[1] for v in r.values()]
    print(f"{label:16} {med(loops):10.1f} ({min(loops):6.1f}-{max(loops):6.1f}) "
          f"{med(loops) / med(v[0] for v in bare.values()):7.3f} {med(walls):8.0f} "
          f"{med(walls) / med(v[1] for v in bare.values()):7.3f}")
def excess(a, b):
    """Paired per round: a's loop minus b's, in bare loops, sorted."""
    return sorted((runs[a][k][0] - runs[b][k][0]) / bare[k][0]
                  for k in bare if k in runs[a] and k in runs[b])

if parts:
    # The fastest round of each configuration is the least disturbed one: its
    # difference is shown beside the paired median.
    fastest = lambda label: min(v[0] for v in runs[label].values())
    print("cost over the kernel-records floor of each part:")
    for a, b in [("part_" + p, "floor") for p in parts]:
        ex = excess(a, b)
        print(f"  {a} - {b}: {100 * med(ex):+.1f}% of the bare loop "
              f"(range {100 * ex[0]:+.1f}% to {100 * ex[-1]:+.1f}%); fastest rounds "
              f"{100 * (fastest(a) - fastest(b)) / fastest('bare'):+.1f}%")
for rec, flo in (("recorder_noapi", "floor"), ("recorder", "floor_runtime")):
    ex = excess(rec, flo)
    print(f"{rec} - {flo} (kernel-records floor): {100 * med(ex):+.1f}% of the bare loop "
          f"(range {100 * ex[0]:+.1f}% to {100 * ex[-1]:+.1f}%)")
def interval(xs):
    """Bootstrap 95% interval of the median (fixed seed: the same runs give the same text)."""
    rng = random.Random(1)
    meds = sorted(med(rng.choices(xs, k=len(xs))) for _ in range(2000))
    return meds[49], meds[1949]

ok = True
for rec, flo in (("recorder_noapi", "floor_gpu"), ("recorder", "floor_full")):
    ex = excess(rec, flo)
    m = med(ex)
    lo, hi = interval(ex)
    ok &= m <= 0.05
    print(f"{rec} - {flo}: {100 * m:+.1f}% of the bare loop (median of {len(ex)} rounds, "
          f"95% interval {100 * lo:+.1f}% to {100 * hi:+.1f}%, "
          f"range {100 * ex[0]:+.1f}% to {100 * ex[-1]:+.1f}%): "
          f"{'met' if m <= 0.05 else 'NOT met'} (goal <= floor + 5%)")
print("goal met" if ok else "goal NOT met")
sys.exit(0 if ok else 1)
PY
} >"$out/summary.txt" 2>&1
rc=$?
cat "$out/summary.txt"
exit $rc
