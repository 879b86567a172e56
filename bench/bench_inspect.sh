#!/bin/sh
# Benchmark of `rocm-perf inspect` on fat binaries with 1000 kernels.
#
# usage: bench/bench_inspect.sh [ROCM_PERF] [WORKDIR]
#   ROCM_PERF  the rocm-perf binary (default build/release/src/cli/rocm-perf)
#   WORKDIR    where sources and binaries are generated (default a mktemp dir)
# Environment: KERNELS (default 1000), RUNS (default 7), HIPCC, NVCC,
#   HIP_ARCHS (default "gfx90a gfx940 gfx1030"), CUDA_ARCHS (default "80 90").
#
# Generates KERNELS kernels of varied register, LDS and scratch use, builds a
# HIP executable holding them for every HIP_ARCHS target and a CUDA executable
# for every CUDA_ARCHS target (each where the compiler exists), then times
# `inspect` (table and --json) RUNS times and prints min/median/max seconds.
set -eu

ROCM_PERF=${1:-build/release/src/cli/rocm-perf}
WORK=${2:-$(mktemp -d)}
KERNELS=${KERNELS:-1000}
RUNS=${RUNS:-7}
HIPCC=${HIPCC:-$(command -v hipcc || true)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
HIP_ARCHS=${HIP_ARCHS:-"gfx90a gfx940 gfx1030"}
CUDA_ARCHS=${CUDA_ARCHS:-"80 90"}

[ -x "$ROCM_PERF" ] || { echo "bench_inspect: no rocm-perf at '$ROCM_PERF'" >&2; exit 2; }
mkdir -p "$WORK"

# One kernel per index: LDS size, private array and unroll depth vary with i.
gen() {
    python3 - "$1" "$KERNELS" <<'EOF'
import sys
lang, n = sys.argv[1], int(sys.argv[2])
out = []
if lang == "hip":
    out.append("#include <hip/hip_runtime.h>")
for i in range(n):
    lds = 64 * (1 + i % 16)
    priv = 4 * (1 + i % 5)
    unroll = 1 + i % 7
    block = (64, 128, 256, 512, 1024)[i % 5]
    out.append(f"""
__global__ void __launch_bounds__({block}) k{i:04d}(float *o, const float *a, int n, int s)
{{
    __shared__ float tile[{lds}];
    float p[{priv}];
    int t = threadIdx.x;
    tile[t % {lds}] = a[t];
    for (int j = 0; j < {priv}; j++)
        p[j] = a[(t + j * s) % n];
    __syncthreads();
    float acc = tile[(t + {i}) % {lds}];
#pragma unroll
    for (int j = 0; j < {unroll}; j++)
        acc = acc * p[(t + j) % {priv}] + {i}.0f;
    o[blockIdx.x * blockDim.x + t] = acc + p[s % {priv}];
}}""")
if lang == "hip":
    out.append("int main() { return 0; }")
else:
    out.append("int main(void) { return 0; }")
print("\n".join(out))
EOF
}

# min / median / max of RUNS timings of a command, in seconds.
timeit() {
    i=0
    : > "$WORK/times"
    while [ "$i" -lt "$RUNS" ]; do
        s=$(date +%s.%N)
        "$@" > /dev/null
        e=$(date +%s.%N)
        echo "$e - $s" | bc -l >> "$WORK/times"
        i=$((i + 1))
    done
    sort -n "$WORK/times" | awk '{t[NR]=$1} END {printf "min %.3f s  median %.3f s  max %.3f s\n", t[1], t[int((NR+1)/2)], t[NR]}'
}

report() {
    bin=$1
    rows=$("$ROCM_PERF" inspect -q "$bin" | tail -n +2 | wc -l)
    printf '%s: %s bytes, %s kernel rows\n' "$bin" "$(stat -c %s "$bin")" "$rows"
    printf '  table: '
    timeit "$ROCM_PERF" inspect -q "$bin"
    printf '  json:  '
    timeit "$ROCM_PERF" inspect -q --json "$bin"
}

if [ -n "$HIPCC" ]; then
    gen hip > "$WORK/k1000.hip"
    flags=""
    for a in $HIP_ARCHS; do flags="$flags --offload-arch=$a"; done
    s=$(date +%s)
    # shellcheck disable=SC2086
    "$HIPCC" -O2 $flags "$WORK/k1000.hip" -o "$WORK/k1000_hip"
    echo "hipcc build: $(( $(date +%s) - s )) s ($HIP_ARCHS)"
    report "$WORK/k1000_hip"
else
    echo "bench_inspect: no hipcc, HIP fat binary skipped"
fi

if [ -x "$NVCC" ]; then
    gen cuda > "$WORK/k1000.cu"
    flags=""
    for a in $CUDA_ARCHS; do flags="$flags -gencode arch=compute_$a,code=sm_$a"; done
    s=$(date +%s)
    # shellcheck disable=SC2086
    "$NVCC" -O2 $flags "$WORK/k1000.cu" -o "$WORK/k1000_cuda"
    echo "nvcc build: $(( $(date +%s) - s )) s (sm $CUDA_ARCHS)"
    report "$WORK/k1000_cuda"
else
    echo "bench_inspect: no nvcc, CUDA fat binary skipped"
fi
