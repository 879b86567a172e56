#!/bin/bash
# gpu/autotune/check.sh BUNDLE: `rocm-perf autotune` on a tiled SGEMM against
# an exhaustive sweep of the same space, on an NVIDIA GPU (issue 16).
#
# On the CPU machine, bundle the CLI and the CUPTI recorder (bin/ and lib/):
#   scripts/gpu-bundle.sh .device-bundle \
#       build/<dir>/src/cli/rocm-perf build/<dir>/src/tools/cupti/librpl_cupti.so
# On the GPU machine, from the repository root (needs nvcc, python3, nvidia-smi):
#   OUT=DIR gpu/autotune/check.sh .device-bundle
#
# The space is gpu/autotune/gemm_space.json (161 configs of gemm_tune.cu;
# AUTOTUNE_SPACE=FILE takes another).  Every run builds each config with
# nvcc for this GPU's architecture, reads its static features, and measures
# `gemm_tune 2048 11` under CUPTI (10 samples after the warm-up launch):
#   1. exhaustive: every config once (--budget 100%, no cache): the truth;
#   2. autotune:   --budget 30% with an empty cache (--jobs 1);
#   3. cached:     the same again, every config rebuilt: it must measure
#                  nothing (the cache keys on the GPU code and the build's
#                  inputs, not on the program's bytes, which nvcc changes);
#   4. jobs2:      with 2 or more GPUs, the same search with --jobs 2 and
#                  --no-cache: its wall time against step 2's, same winner.
# Then compare.py prints best exhaustive against autotune's best (by the
# exhaustive medians: within 3 %?), the measurements against the budget
# (at most 30 % of the space, confirm and unstable re-measures included),
# the wall times, the cache re-run and the --jobs 2 wall time and winner.
# Steps 3 and 4 are skipped (and say so) when the script has already run
# 380 s or 410 s, so that it ends within about 8 minutes.  $OUT gets
# summary.txt, summary.md (the table for docs/validation/autotune-gpu.md),
# every run's JSON, SVG, stdout and stderr, and times.txt.  Exit 0 when
# every check holds.  Budget: about 4 to 5 minutes on H100s (builds on all
# cores).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$(cd "${1:?usage: gpu/autotune/check.sh BUNDLE}" && pwd)
out=${OUT:-$root/out/autotune}
space=${AUTOTUNE_SPACE:-$root/gpu/autotune/gemm_space.json}
rp=$bundle/bin/rocm-perf
work=$(mktemp -d)
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ROCM_PERF_CUPTI_LIB=$bundle/lib/librpl_cupti.so
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
: >"$out/times.txt"

say() { echo "$*" | tee -a "$summary" >&2; }

say "# rocm-perf autotune on a GPU: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
[ -x "$rp" ] || { say "missing $rp (bundle it first)"; exit 1; }
command -v nvcc >/dev/null || { say "nvcc not found"; exit 1; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
[ -n "$cc" ] || cc=90
say "gpus: $gpus; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"
say "nvcc: $(nvcc --version | tail -1); rocm-perf: $("$rp" version 2>&1); cpus: $(nproc)"
say "space: $space"

build="nvcc -O3 -arch=sm_$cc -DBM={BM} -DBN={BN} -DBK={BK} -DTM={TM} -DTN={TN} -o {OUT} $root/gpu/autotune/gemm_tune.cu"
common=(--space "$space" --build-template "$build" --cmd-template "{OUT} 2048 11"
    --kernel gemm_tune --arch "sm_$cc" --block "(BM/TM)*(BN/TN)" --repetitions 10
    --timeout 60 --build-jobs "$(nproc)" --backend cupti)

# tune NAME ARGS...: one autotune run; NAME.{json,svg,out,err} in $OUT, "NAME rc ms" in times.txt.
tune() {
    local name=$1 t0 t1 rc
    shift
    say "== $name: rocm-perf autotune $*"
    t0=$(date +%s%N)
    "$rp" autotune "${common[@]}" "$@" --json "$out/$name.json" --plot "$out/$name.svg" \
        >"$out/$name.out" 2>"$out/$name.err"
    rc=$?
    t1=$(date +%s%N)
    echo "$name $rc $(((t1 - t0) / 1000000))" >>"$out/times.txt"
    sed 's/^/    /' "$out/$name.out" | tee -a "$summary" >&2
    grep -v '^$' "$out/$name.err" | tail -3 | sed 's/^/    stderr: /' | tee -a "$summary" >&2
    say "    exit $rc after $(((t1 - t0) / 1000000)) ms"
}

# later() NAME LIMIT_S: false (and says so) once the script has run LIMIT_S seconds,
# so that the whole check stays within the device time of one session.
later() {
    [ "$SECONDS" -le "$2" ] && return 0
    say "== $1: skipped, ${SECONDS}s spent (limit ${2}s before it)"
    return 1
}

tune exhaustive --budget 100% --no-cache
tune autotune --budget 30% --cache "$work/cache.db"
later cached 380 && tune cached --budget 30% --cache "$work/cache.db"
if [ "$gpus" -ge 2 ]; then
    later jobs2 410 && tune jobs2 --budget 30% --no-cache --jobs 2
else
    say "== jobs2: skipped, $gpus GPU (needs 2)"
fi
python3 "$root/gpu/autotune/compare.py" "$out" | tee -a "$summary" >&2
rc=${PIPESTATUS[0]}
rm -rf "$work"
exit "$rc"
