# gpu/lib.sh: the set-up that the bundled GPU checks share, sourced (not run).
#
# On the CPU machine, by gpu/<area>/bundle.sh (llm, optimize, replay):
#   bundle_start BUILD_DIR OUT_DIR   sets root, build, out; empties OUT_DIR, makes OUT_DIR/gpu
#   bundle_finish FILE...            rocm-perf and librpl_cupti.so with the libraries the GPU
#                                    machine lacks (scripts/gpu-bundle.sh), FILE... beside them
# On the GPU machine, by the check.sh such a bundle carries (llm, optimize; the bundle holds
# this file next to it):
#   check_start NAME        sets root, bundle (RPL_BUNDLE), out ($OUT, else out/NAME), rp,
#                           work (removed at exit, its logs/ kept as $out/logs.tar.gz); the
#                           environment rocm-perf needs there (CUDA, CUPTI, libclang)
#   check_machine [LINE...] machine.txt (under $out and the logs), LINE... before rocm-perf's
#   check_need_gpu          exit 1 without rocm-perf, 77 without an NVIDIA GPU
#   scratch_repo FILE...    the user's repository: $repo with FILE... committed under src/,
#                           its state hashed into $before
#   check_untouched FILE    "checkout untouched: yes" (or NO) appended to FILE and printed
#   serve NAME              the stand-in LLM server ($bundle/standin_server.py) answering from
#                           $bundle/answers/NAME and expecting the API key $key; sets $url and
#                           $server_pid
# shellcheck shell=bash

bundle_start() {
    root=$(cd "$(dirname "$0")/../.." && pwd)
    build=$(cd "$1" && pwd)
    out=$2
    rm -rf "$out"
    mkdir -p "$out/gpu"
}

bundle_finish() {
    "$root/scripts/gpu-bundle.sh" "$out" "$build/src/cli/rocm-perf" \
        "$build/src/tools/cupti/librpl_cupti.so"
    cp "$@" "$out/"
    du -sh "$out"
}

check_start() {
    root=$(cd "$(dirname "$0")/.." && pwd)
    bundle=${RPL_BUNDLE:-$(cd "$(dirname "$0")" && pwd)}
    out=${OUT:-$root/out/$1}
    rp=$bundle/bin/rocm-perf
    work=$(mktemp -d)
    mkdir -p "$out" "$work/logs"
    export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
    export ROCM_PERF_CUPTI_LIB=$bundle/lib/librpl_cupti.so
    export PATH=/usr/local/cuda/bin:$PATH
    if [ -z "${ROCM_PERF_LIBCLANG:-}" ]; then
        local c
        for c in /usr/lib/x86_64-linux-gnu/libclang-*.so* /usr/lib/llvm-*/lib/libclang.so*; do
            [ -f "$c" ] && { export ROCM_PERF_LIBCLANG=$c; break; }
        done
    fi
    trap check_finish EXIT
}

# check_finish: the EXIT trap; a check with more to stop calls it from its own trap.
check_finish() {
    tar -czf "$out/logs.tar.gz" -C "$work" logs 2>/dev/null
    rm -rf "$work"
}

log() { echo "$*" | tee -a "$work/logs/steps.txt" >&2; }

check_machine() {
    {
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "host: $(hostname) kernel: $(uname -r)"
        echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)"
        echo "nvcc: $(nvcc --version 2>&1 | tail -1)"
        echo "libclang: ${ROCM_PERF_LIBCLANG:-none found}"
        [ $# = 0 ] || printf '%s\n' "$@"
        echo "rocm-perf: $("$rp" version 2>&1)"
    } | tee "$work/logs/machine.txt" "$out/machine.txt" >&2
}

check_need_gpu() {
    [ -x "$rp" ] || { log "missing $rp"; exit 1; }
    if [ ! -e /dev/nvidia0 ] && [ ! -d /proc/driver/nvidia/gpus ]; then
        log "no NVIDIA GPU: skipped"
        exit 77
    fi
}

scratch_repo() {
    repo=$work/repo
    mkdir -p "$repo/src"
    cp "$@" "$repo/src/"
    git -C "$repo" init -q -b main
    git -C "$repo" add .
    git -C "$repo" -c user.name=check -c user.email=check@localhost commit -q -m "kernels"
    git -C "$repo" config user.name "rocm-perf check"
    git -C "$repo" config user.email "check@localhost"
    before=$(repo_state)
}

# repo_state: HEAD, the index and the sources, hashed.
repo_state() { (cd "$repo" && git rev-parse HEAD && sha256sum .git/index .git/HEAD src/*) | sha256sum; }

check_untouched() {
    if [ "$before" = "$(repo_state)" ]; then
        echo "checkout untouched: yes" | tee -a "$1" >&2
    else
        echo "checkout untouched: NO" | tee -a "$1" >&2
    fi
}

serve() {
    rm -f "$work/port"
    STANDIN_EXPECTED_KEY=$key python3 "$bundle/standin_server.py" \
        --scripts "$bundle/answers/$1" --port-file "$work/port" \
        --log "$work/logs/$1.requests.jsonl" --time-limit 400 &
    server_pid=$!
    for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
    url=http://127.0.0.1:$(cat "$work/port")/v1
}
