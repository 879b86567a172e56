#!/bin/bash
# gpu/dag/host_sync.sh: the critical path through the host on real recordings.
#
# gpu/cupti/two_streams.cu is recorded twice with the CUPTI recorder: built
# as is (its cudaMemcpy calls run on the legacy default stream) and built
# with `nvcc --default-stream per-thread` (they become cudaMemcpy_ptds on the
# per-thread default stream).  `rocm-perf analyze --out` then builds each
# DAG, and gpu/dag/check_host_sync.py checks the host_sync and
# default_stream edges (docs/schemas/dag-dependencies.md §5-§6): one legacy
# lane with barriers in the first, one per-thread lane and no barriers in
# the second, both kernels on the critical path and a dominant kernel in
# both.  $OUT gets summary.txt, both databases and both analyze folders.
#
# On the CPU machine, from the repository root:
#   scripts/gpu-bundle.sh .device-bundle build/dev/src/tools/cupti/librpl_cupti.so \
#       build/dev/src/cli/rocm-perf
#   mkdir -p .device-bundle/gpu
#   nvcc -arch=sm_90 -O2 -o .device-bundle/gpu/two_streams gpu/cupti/two_streams.cu
#   nvcc -arch=sm_90 -O2 --default-stream per-thread \
#       -o .device-bundle/gpu/two_streams_ptds gpu/cupti/two_streams.cu
# On the GPU machine, from the repository root (about a minute):
#   OUT=DIR gpu/dag/host_sync.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out/dag}
bundle=$root/.device-bundle
work=$(mktemp -d)
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary" >&2; }
if ! nvidia-smi >/dev/null 2>&1; then
    say "no GPU: skipped"
    exit 77
fi

say "# host-side DAG edges on the GPU: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
status=0
for prog in two_streams two_streams_ptds; do
    raw=$work/raw/$prog
    mkdir -p "$raw"
    if ! ROCM_PERF_CUPTI_OUTPUT=$raw CUDA_INJECTION64_PATH=$bundle/lib/librpl_cupti.so \
        timeout 120 "$bundle/gpu/$prog" >"$out/$prog.log" 2>&1; then
        say "$prog: the program failed (see $prog.log)"
        status=1
        continue
    fi
    db=$(find "$raw" -name '*_results.db' | head -n 1)
    if [ -z "$db" ]; then
        say "$prog: the recorder wrote no database"
        status=1
        continue
    fi
    cp "$db" "$out/$prog.db"
    if ! timeout 120 "$bundle/bin/rocm-perf" analyze "$out/$prog.db" --out "$out/$prog" \
        >"$out/$prog.analyze.txt" 2>&1; then
        say "$prog: analyze failed: $(tail -n 1 "$out/$prog.analyze.txt")"
        status=1
        continue
    fi
    tail -n 4 "$out/$prog.analyze.txt" | sed "s/^/$prog: /" | tee -a "$summary" >&2
    echo "$prog regions: $(sqlite3 "$out/$prog.db" \
        "SELECT DISTINCT name FROM regions ORDER BY name" 2>&1 | tr '\n' ' ')" >>"$summary"
    mode=legacy
    [ "$prog" = two_streams_ptds ] && mode=per-thread
    if ! python3 "$root/gpu/dag/check_host_sync.py" "$mode" "$out/$prog/dag.json" >>"$summary" 2>&1; then
        status=1
    fi
done
tail -n 20 "$summary" >&2
say "status: $status"
rm -rf "$work"
exit $status
