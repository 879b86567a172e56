#!/bin/bash
# gpu/cupti/run_on_gpu.sh: prove the CUPTI recorder on an NVIDIA GPU.
#
# Run from the repository root on the GPU machine, with the recorder, the
# CLI and the prebuilt programs bundled beside it (built on the CPU machine;
# see gpu/README.md for the exact commands):
#   .device-bundle/lib/librpl_cupti.so, .device-bundle/bin/rocm-perf,
#   .device-bundle/gpu/{two_streams,copies,gemm_tiled,saxpy_copy,
#       tiny_kernel_launches,spawn_child,libcupti_floor.so,segv_backtrace.so}
#   OUT=DIR gpu/cupti/run_on_gpu.sh
# Knobs: RPL_REPS (5), RPL_LAUNCHES (100000), RPL_COUNTER_LAUNCHES (500),
# RPL_OCCUPANCY (1: also run gpu/occupancy_check.sh).
#
# Steps, most important first, each under a timeout: counters (roofline set)
# on the GEMM, then saxpy/copy, copies and two_streams; the trace-only
# databases (kernels timed concurrently and serially); ncu on the same
# programs with the same metrics; the overhead of 100k tiny launches (no
# recorder, CUPTI alone, the recorder in three API settings, and with serial
# kernel timing) and of counters; the occupancy check; the analysis.  $OUT gets
# summary.txt, dbs.tar.gz (all databases) and results.tar.gz (everything
# else: ncu CSVs, logs, occupancy and analyze outputs).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out/cupti}
reps=${RPL_REPS:-5}
launches=${RPL_LAUNCHES:-100000}
counter_launches=${RPL_COUNTER_LAUNCHES:-500}
work=$(mktemp -d)
bundle=$root/.device-bundle
lib=$bundle/lib/librpl_cupti.so
gbin=$bundle/gpu
rp=$bundle/bin/rocm-perf
summary=$out/summary.txt
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out" "$work/db" "$work/raw" "$work/ncu" "$work/analyze" "$work/logs"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics=$metrics,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
metrics=$metrics,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum
metrics=$metrics,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,lts__t_bytes.sum

say() { echo "$*" | tee -a "$summary" >&2; }
now_ns() { date +%s%N; }
finish() {
    tar -czf "$out/dbs.tar.gz" -C "$work" db 2>/dev/null
    tar -czf "$out/results.tar.gz" -C "$work" ncu analyze logs bench.txt occupancy 2>/dev/null
}
trap finish EXIT

say "# CUPTI recorder on the GPU: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "host: $(hostname) kernel: $(uname -r) clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>&1)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1)"
say "nvcc: $(nvcc --version | tail -1); ncu: $(ncu --version 2>&1 | tail -1)"
[ -f "$lib" ] || { say "missing $lib"; exit 1; }

# record NAME [ENV...] -- PROG: run under the recorder into raw/NAME; copies the DB to db/NAME.db.
record() {
    local name=$1 dir=$work/raw/$1
    shift
    rm -rf "$dir"
    env ROCM_PERF_LOG=${RPL_LOG:-info} ROCM_PERF_CUPTI_OUTPUT="$dir" CUDA_INJECTION64_PATH="$lib" \
        "$@" >"$work/logs/$name.log" 2>&1
    local rc=$? db
    db=$(find "$dir" -name '*_results.db' 2>/dev/null | sort | head -1)
    if [ $rc -ne 0 ] || [ -z "$db" ]; then
        say "$name: exit status $rc, database: ${db:-none}; end of its log:"
        tail -40 "$work/logs/$name.log" | tee -a "$summary" >&2
        [ -n "$db" ] && cp "$db" "$work/db/$name.db"
        return 1
    fi
    cp "$db" "$work/db/$name.db"
    say "$name: ok ($(grep -o 'wrote .*' "$work/logs/$name.log" | tail -1))"
}

# 1. Counters, the GEMM first, with a backtrace should it crash.
counters_ok=0
for p in gemm_tiled saxpy_copy copies two_streams; do
    RPL_LOG=debug record "${p}_counters" LD_PRELOAD="$gbin/segv_backtrace.so" \
        ROCM_PERF_CUPTI_COUNTERS=roofline timeout -k 5 60 "$gbin/$p" && counters_ok=1
    [ $counters_ok -eq 1 ] || break
done
grep -h "replay passes\|not available\|ranges evaluated\|counter ranges\|left out" \
    "$work"/logs/*_counters.log 2>/dev/null | sort | uniq -c | head -20 >>"$summary"

# 2. Trace only (the committed fixtures), kernels timed concurrently and
#    serially (ROCM_PERF_CUPTI_KERNELS=serial), and a child process.
for p in two_streams copies gemm_tiled saxpy_copy; do
    record "$p" timeout -k 5 40 "$gbin/$p"
    record "${p}_serial" ROCM_PERF_CUPTI_KERNELS=serial timeout -k 5 40 "$gbin/$p"
done
record spawn_child timeout -k 5 40 "$gbin/spawn_child"
say "spawn_child: $(find "$work/raw/spawn_child" -name '*_results.db' | wc -l) databases"

# 3. ncu, same metrics, caches as found (none) and flushed (all).
for p in gemm_tiled saxpy_copy copies two_streams; do
    for cc in none all; do
        [ "$cc" = all ] && [ "$p" = copies -o "$p" = two_streams ] && continue
        timeout -k 5 90 ncu --csv --print-units base --clock-control none --cache-control $cc \
            --metrics "$metrics" "$gbin/$p" >"$work/ncu/${p}_$cc.csv" 2>"$work/logs/ncu_${p}_$cc.log" ||
            say "ncu $p ($cc) failed: $(tail -2 "$work/logs/ncu_${p}_$cc.log")"
    done
done

# 4. Overhead of tracing: 100k tiny launches, configurations interleaved.
bench() { # bench LABEL N [ENV...]: one run; appends "label loop_ms wall_ms enqueue_ms"
    local label=$1 n=$2 t0 t1 line dir=$work/raw/bench
    shift 2
    rm -rf "$dir"
    t0=$(now_ns)
    line=$(env ROCM_PERF_CUPTI_OUTPUT="$dir" "$@" timeout -k 5 60 "$gbin/tiny_kernel_launches" "$n" 2>>"$work/logs/bench.log")
    t1=$(now_ns)
    echo "$label $(echo "$line" | sed -n 's/.*loop_ms=\([0-9.]*\).*/\1/p') $(((t1 - t0) / 1000000)) $(echo "$line" | sed -n 's/.*enqueue_ms=\([0-9.]*\).*/\1/p')" >>"$work/bench.txt"
    [ -d "$dir" ] && [ ! -f "$work/dbsize_$label" ] &&
        find "$dir" -name '*_results.db' -exec du -k {} + | awk -v l="$label" '{print l " database: " $1 " KiB"}' | tee "$work/dbsize_$label" >>"$summary"
    rm -rf "$dir"
}
for i in $(seq "$reps"); do
    bench base "$launches"
    bench cupti_kernels "$launches" CUDA_INJECTION64_PATH="$gbin/libcupti_floor.so"
    bench cupti_kernels_runtime "$launches" CUDA_INJECTION64_PATH="$gbin/libcupti_floor.so" CUPTI_FLOOR_API=runtime
    bench trace_noapi "$launches" CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_API=none
    bench trace "$launches" CUDA_INJECTION64_PATH="$lib"
    bench trace_driver "$launches" CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_API=runtime,driver
    bench cupti_serial "$launches" CUDA_INJECTION64_PATH="$gbin/libcupti_floor.so" CUPTI_FLOOR_KERNELS=serial
    bench trace_serial_noapi "$launches" CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_API=none ROCM_PERF_CUPTI_KERNELS=serial
    bench trace_serial "$launches" CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_KERNELS=serial
done
if [ $counters_ok -eq 1 ]; then
    for i in 1 2; do
        bench cbase "$counter_launches"
        bench counters "$counter_launches" CUDA_INJECTION64_PATH="$lib" ROCM_PERF_CUPTI_COUNTERS=roofline
    done
fi
python3 - "$work/bench.txt" "$launches" "$counter_launches" <<'PY' | tee -a "$summary"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 3 and p[1]:
        rows.setdefault(p[0], []).append([float(x) for x in p[1:4]])
def med(label, i):
    return statistics.median(r[i] for r in rows[label]) if label in rows else float("nan")
print(f"overhead ({sys.argv[2]} launches; counters {sys.argv[3]}): label runs loop_ms wall_ms enqueue_ms (medians)")
for label in rows:
    print(label, len(rows[label]), med(label, 0), med(label, 1), med(label, 2))
for a, b in (("cupti_kernels", "base"), ("cupti_kernels_runtime", "base"), ("trace_noapi", "base"),
             ("trace", "base"), ("trace_driver", "base"), ("cupti_serial", "base"),
             ("trace_serial_noapi", "base"), ("trace_serial", "base"), ("counters", "cbase")):
    if a in rows and b in rows:
        print(f"{a}/{b}: loop x{med(a, 0) / med(b, 0):.4f}, wall x{med(a, 1) / med(b, 1):.4f},"
              f" enqueue x{med(a, 2) / med(b, 2):.4f}")
PY

# 5. The occupancy check of `rocm-perf inspect` (gpu/occupancy_check.sh).
if [ "${RPL_OCCUPANCY:-1}" = 1 ]; then
    OUT=$work/occupancy ROCM_PERF=$rp timeout -k 5 120 "$root/gpu/occupancy_check.sh" run \
        >"$work/logs/occupancy.log" 2>&1
    say "occupancy_check: exit status $?"
    tail -30 "$work/logs/occupancy.log" >>"$summary"
fi

# 6. The databases as the analysis and the summariser see them.
for f in "$work"/db/*.db; do
    p=$(basename "$f" .db)
    timeout 60 "$rp" analyze "$f" --include-helpers --out "$work/analyze/$p" \
        >"$work/analyze/$p.txt" 2>&1 || say "analyze $p: exit status $?"
done
head -12 "$work/analyze/two_streams.txt" >>"$summary" 2>/dev/null
args=""
for p in two_streams copies gemm_tiled saxpy_copy; do
    args="$args $p=$work/db/$p.db,$work/ncu/${p}_none.csv"
    args="$args ${p}_serial=$work/db/${p}_serial.db,$work/ncu/${p}_none.csv"
    args="$args ${p}_counters=$work/db/${p}_counters.db,$work/ncu/${p}_none.csv,$work/ncu/${p}_all.csv"
done
timeout 60 python3 "$root/gpu/cupti/summarize.py" $args >>"$summary" 2>&1
tail -40 "$summary"
