#!/bin/bash
# gpu/cupti/run_on_gpu.sh: prove the CUPTI recorder on an NVIDIA GPU.
#
# Run from the repository root on the GPU machine, with the recorder and the
# CLI bundled beside it (built on the CPU machine):
#   /work/shared/tools/device-bundle.sh .device-bundle \
#       build/cupti/src/tools/cupti/librpl_cupti.so build/cupti/src/cli/rocm-perf
#   gpu/cupti/run_on_gpu.sh            # writes into $OUT (default out/cupti)
# Knobs: RPL_REPS (5), RPL_LAUNCHES (100000), RPL_COUNTER_LAUNCHES (2000),
# RPL_GPU_BIN (directory of prebuilt programs).
#
# It builds the test programs with nvcc -arch=sm_90, records each under the
# recorder (trace only, then with the roofline counters), runs ncu on the
# same programs, measures the recorder's overhead on 100k tiny launches,
# runs `rocm-perf analyze` on the databases, and leaves in $OUT (flat, at
# most 8 files): summary.txt, the three programs' databases (trace only and
# with counters), and results.tar.gz with everything else (ncu CSVs, logs,
# analyze output).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out/cupti}
reps=${RPL_REPS:-5}
launches=${RPL_LAUNCHES:-100000}
counter_launches=${RPL_COUNTER_LAUNCHES:-2000}
work=$(mktemp -d)
bundle=$root/.device-bundle
lib=$bundle/lib/librpl_cupti.so
rp=$bundle/bin/rocm-perf
summary=$out/summary.txt
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out" "$work/bin" "$work/db" "$work/raw" "$work/ncu" "$work/analyze" "$work/logs"

say() { echo "$*" | tee -a "$summary" >&2; }
now_ns() { date +%s%N; }

say "# CUPTI recorder on the GPU: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "host: $(hostname) kernel: $(uname -r)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1)"
say "nvcc: $(nvcc --version | tail -1)"
say "ncu: $(ncu --version 2>&1 | tail -1)"
[ -f "$lib" ] || { say "missing $lib"; exit 1; }

# RPL_GPU_BIN=DIR takes the programs built elsewhere with the same command
# (nvcc 13.0 on the CPU machine), which saves the GPU machine's time.
progs="two_streams copies gemm_tiled tiny_kernel_launches spawn_child"
for p in $progs; do
    if [ -n "${RPL_GPU_BIN:-}" ] && [ -x "$RPL_GPU_BIN/$p" ]; then
        cp "$RPL_GPU_BIN/$p" "$work/bin/$p"
    else
        nvcc -arch=sm_90 -O2 -lineinfo -o "$work/bin/$p" "$root/gpu/cupti/$p.cu" \
            >>"$work/logs/build.log" 2>&1 || say "build of $p failed (logs/build.log)"
    fi
done
say "programs: $(cd "$work/bin" && ls | tr '\n' ' ')(${RPL_GPU_BIN:-built here with nvcc})"

# record NAME OUTDIR [ENV...] -- PROG ARGS: run under the recorder; prints the DB path(s).
record() {
    local name=$1 dir=$2
    shift 2
    rm -rf "$dir"
    env ROCM_PERF_LOG=info ROCM_PERF_CUPTI_OUTPUT="$dir" CUDA_INJECTION64_PATH="$lib" "$@" \
        >>"$work/logs/$name.log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || say "$name: exit status $rc (logs/$name.log)"
    find "$dir" -name '*_results.db' 2>/dev/null | sort
}

# Trace only, and ncu on the same programs.  Databases go to $OUT at once, so
# that a later step that runs out of time loses nothing before it.
for p in two_streams copies gemm_tiled; do
    db=$(record "$p" "$work/raw/$p" timeout -k 5 60 "$work/bin/$p" | head -1)
    if [ -n "$db" ]; then cp "$db" "$work/db/$p.db" && cp "$db" "$out/$p.db"; else say "$p: no database"; fi
    timeout -k 5 90 ncu --csv --clock-control none --cache-control none \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        "$work/bin/$p" >"$work/ncu/$p.csv" 2>"$work/logs/ncu_$p.log" || say "ncu $p failed"
done

# A child started by the application gets its own database.
dbs=$(record spawn_child "$work/raw/spawn_child" timeout -k 5 60 "$work/bin/spawn_child")
say "spawn_child: $(echo "$dbs" | grep -c results.db) databases: $(echo $dbs | xargs -n1 basename 2>/dev/null | tr '\n' ' ')"
say "$(grep 'spawn_child: ok' "$work/logs/spawn_child.log")"

# Overhead: the launch loop (as the program times it) and the whole process.
bench() { # bench LABEL N [ENV...]: one run; appends "label loop_ms wall_ms"
    local label=$1 n=$2
    shift 2
    local dir="$work/raw/bench_$label" t0 t1 line
    rm -rf "$dir"
    t0=$(now_ns)
    line=$(env ROCM_PERF_CUPTI_OUTPUT="$dir" "$@" timeout -k 5 30 "$work/bin/tiny_kernel_launches" "$n" 2>>"$work/logs/bench.log")
    t1=$(now_ns)
    echo "$label $(echo "$line" | sed -n 's/.*loop_ms=\([0-9.]*\).*/\1/p') $(((t1 - t0) / 1000000))" >>"$work/bench.txt"
    if [ -d "$dir" ] && [ ! -f "$work/dbsize_$label" ]; then
        find "$dir" -name '*_results.db' -exec du -k {} + | awk -v l="$label" '{print l " database: " $1 " KiB"}' >"$work/dbsize_$label"
        cat "$work/dbsize_$label" >>"$summary"
    fi
    rm -rf "$dir"
}
trace_ok=0
[ -f "$work/db/two_streams.db" ] && trace_ok=1
for i in $(seq "$reps"); do
    [ $trace_ok -eq 1 ] || { say "tracing failed: no overhead runs"; break; }
    bench base "$launches"
    bench trace "$launches" CUDA_INJECTION64_PATH="$lib"
    bench trace_runtime "$launches" CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_API=runtime
    bench trace_noapi "$launches" CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_API=none
done
# Counters (range profiler, kernel replay): the GEMM first; the others and
# the counter overhead only when it worked.
counters_ok=0
for p in gemm_tiled two_streams copies; do
    [ "$p" = gemm_tiled ] || [ $counters_ok -eq 1 ] || break
    db=$(record "${p}_counters" "$work/raw/${p}_counters" ROCM_PERF_CUPTI_COUNTERS=roofline \
        ROCM_PERF_LOG=debug timeout -k 5 45 "$work/bin/$p" | head -1)
    if [ -n "$db" ] && grep -q "$p: ok" "$work/logs/${p}_counters.log"; then
        cp "$db" "$work/db/${p}_counters.db" && cp "$db" "$out/${p}_counters.db"
        [ "$p" = gemm_tiled ] && counters_ok=1
    else
        say "${p}_counters failed; the end of its log:"
        tail -15 "$work/logs/${p}_counters.log" | tee -a "$summary" >&2
    fi
done
for i in $(seq 3); do
    [ $counters_ok -eq 1 ] || break
    bench cbase "$counter_launches"
    bench counters "$counter_launches" CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_COUNTERS=roofline
done
python3 - "$work/bench.txt" "$launches" "$counter_launches" <<'EOF' | tee -a "$summary"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 3 and parts[1]:
        rows.setdefault(parts[0], []).append((float(parts[1]), float(parts[2])))
def med(label, i):
    return statistics.median(r[i] for r in rows[label]) if label in rows else float("nan")
print(f"overhead, {sys.argv[2]} launches: label runs median_loop_ms median_wall_ms (all runs)")
for label in ("base", "trace", "trace_runtime", "trace_noapi", "cbase", "counters"):
    print(label, len(rows.get(label, [])), med(label, 0), med(label, 1), rows.get(label))
for a, b in (("trace", "base"), ("trace_runtime", "base"), ("trace_noapi", "base"),
             ("counters", "cbase")):
    print(f"{a}/{b}: loop x{med(a, 0) / med(b, 0):.4f}, wall x{med(a, 1) / med(b, 1):.4f}")
EOF

# The databases as the analysis sees them, and as the summariser reads them.
for p in two_streams copies gemm_tiled two_streams_counters gemm_tiled_counters; do
    [ -f "$work/db/$p.db" ] || continue
    "$rp" analyze "$work/db/$p.db" --include-helpers --out "$work/analyze/$p" \
        >"$work/analyze/$p.txt" 2>&1 || say "analyze $p: exit status $?"
    head -30 "$work/analyze/$p.txt" >>"$summary"
done
args=""
for p in two_streams copies gemm_tiled; do
    args="$args $p=$work/db/$p.db,$work/ncu/$p.csv ${p}_counters=$work/db/${p}_counters.db,$work/ncu/$p.csv"
done
python3 "$root/gpu/cupti/summarize.py" $args >>"$summary" 2>&1
for f in "$work"/logs/*.log; do
    echo "--- $(basename "$f") (tail)" >>"$summary"
    tail -8 "$f" >>"$summary"
done

tar -czf "$out/results.tar.gz" -C "$work" db ncu analyze logs bench.txt 2>/dev/null
tail -60 "$summary"
