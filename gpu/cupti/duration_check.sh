#!/bin/bash
# gpu/cupti/duration_check.sh BUNDLE: kernel durations from the CUPTI
# recorder (trace only) against CUDA events and ncu's gpu__time_duration.sum,
# back to back and isolated (gpu/cupti/duration_probe.cu says how).
#
# BUNDLE holds lib/librpl_cupti.so and bin/duration_probe, built on the CPU
# machine (nvcc -O2 -arch=sm_90 -lineinfo gpu/cupti/duration_probe.cu -o
# BUNDLE/bin/duration_probe).  Runs, on one GPU, one after the other:
# the probe with events alone, with events under the recorder, alone under
# the recorder (concurrent kernel timing, then serial: ROCM_PERF_CUPTI_KERNELS),
# and under ncu; then duration_compare.py.  $OUT/duration gets
# the table (table.md), durations.json and the raw files.
# Results on an H200: docs/validation/cupti-recorder.md.
set -u
bundle=$(cd "${1:?usage: duration_check.sh BUNDLE}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/out}/duration
lib=$bundle/lib/librpl_cupti.so
probe=$bundle/bin/duration_probe
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=$(mktemp -d)

# recorded NAME ARGS...: the probe under the recorder (kernel timing $KERNELS);
# its database to $out/NAME.db.
recorded() {
    local name=$1
    shift
    ROCM_PERF_CUPTI_KERNELS=${KERNELS:-} ROCM_PERF_CUPTI_OUTPUT="$work/$name" CUDA_INJECTION64_PATH="$lib" \
        timeout -k 5 120 "$probe" "$@" 2>"$out/$name.log"
    cp "$(find "$work/$name" -name '*_results.db' | head -1)" "$out/$name.db"
}

timeout -k 5 120 "$probe" events >"$out/events_plain.txt" 2>"$out/plain.log"
recorded rec_events events >"$out/events_rec.txt"
recorded rec_alone >/dev/null
KERNELS=serial recorded rec_serial >/dev/null
timeout -k 5 300 ncu --csv --print-units base --clock-control none --cache-control none \
    --metrics gpu__time_duration.sum "$probe" >"$out/ncu.csv" 2>"$out/ncu.log"
python3 "$here/duration_compare.py" "$out" "$out/durations.json" | tee "$out/table.md"
