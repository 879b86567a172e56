#!/bin/bash
# gpu/corpus/check.sh: every step of rocm-perf on the third-party corpus (issue 23,
# docs/validation/real-world-gpu.md), on an NVIDIA GPU, with no network.
#
# The bundle (gpu/corpus/bundle.sh, e.g. .gpu-corpus/; RPL_BUNDLE) holds bin/rocm-perf,
# lib/, corpus/bin (the programs, built on the build machine by gpu/corpus/build.sh),
# corpus/src (their sources as fetched by scripts/fetch-corpus.sh), answers/ (stand-in
# LLM answers), standin_server.py, lib.sh and this script.
# On the GPU machine, from the repository root:  OUT=DIR bash .gpu-corpus/check.sh
#
# For each program: its own run time; profile --counters none; profile (counters, the
# default sample); analyze on the output folder; kernels; capture + replay --check;
# llm-optimize with the stand-in answers where the program has them; optimize.  Each
# step has a time limit (STEP_LIMIT, default 150 s; OPT_LIMIT for optimize and
# llm-optimize, default 200 s; no step runs past CHECK_BUDGET s from the start, default
# 500: a step is cut at it, later ones not run; CORPUS_STEPS=profile: only the run, profile and
# analyze steps; CORPUS_STEPS=pipeline: all but those; CORPUS_PROGRAMS="layernorm sgemm":
# only those programs; CORPUS_BENCH=no: no demo trace and no benchmark).  $OUT/steps.tsv: program, step, exit
# status, seconds, note; $OUT/summary.txt the same as a table; logs.tar.gz the output
# of every step.  Exit 0 when it ran (the table says what passed), 77 without a GPU.
set -u
gpu_lib=$(dirname "$0")/lib.sh
[ -f "$gpu_lib" ] || gpu_lib=$(dirname "$0")/../lib.sh
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$gpu_lib"
check_start corpus
limit=${STEP_LIMIT:-150}
opt_limit=${OPT_LIMIT:-200}
budget=${CHECK_BUDGET:-500}
key=rpl-SENTINEL-corpus-51c0
export ROCM_PERF_TEMPLATES=$bundle/templates
check_machine "python3: $(python3 --version 2>&1)"
# The build machine's OpenMP runtime (bundle.sh), after the system's own.
ldconfig -p 2>/dev/null | grep -q 'libgomp\.so\.1 ' ||
    export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$bundle/corpus/gomp
check_need_gpu
bin=$bundle/corpus/bin
src=$bundle/corpus/src
tsv=$out/steps.tsv
printf 'program\tstep\texit\tseconds\tnote\n' >"$tsv"
has_build=no
"$rp" optimize --help 2>&1 | grep -qE -- '--build( |=)' && has_build=yes

# step PROGRAM STEP LIMIT CMD...: run CMD in $work/run, time it, one row of steps.tsv
step() {
    local prog=$1 name=$2 lim=$3
    shift 3
    local t0 rc secs note why=
    if [ "$SECONDS" -ge "$budget" ]; then
        printf '%s\t%s\t-\t-\tnot run: the check budget (%s s) was spent\n' "$prog" "$name" \
            "$budget" >>"$tsv"
        return 0
    fi
    # No step runs past the budget: the check ends (and writes its files) in time.
    if [ $((budget - SECONDS)) -lt "$lim" ]; then
        lim=$((budget - SECONDS))
        why=" (the rest of the check budget)"
    fi
    t0=$EPOCHREALTIME
    (cd "$work/run" && timeout -k 5 "$lim" "$@") >"$work/logs/$prog.$name.out" \
        2>"$work/logs/$prog.$name.err"
    rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    note=$(grep -v '^\s*$' "$work/logs/$prog.$name.err" | tail -1 | cut -c1-160 | tr '\t' ' ')
    [ "$rc" = 124 ] && note="timed out after $lim s$why; $note"
    printf '%s\t%s\t%s\t%s\t%s\n' "$prog" "$name" "$rc" "$secs" "$note" >>"$tsv"
    log "$prog $name: exit $rc, $secs s"
    return 0
}

# program_profile NAME APP ARGS...: the program alone, profile, analyze.
program_profile() {
    local name=$1
    shift
    local app=("$@")
    step "$name" run "$limit" "./${app[0]}" "${app[@]:1}"
    step "$name" profile-none "$limit" "$rp" profile --counters none -q -o "$work/p-$name-none" \
        -- "./${app[0]}" "${app[@]:1}"
    step "$name" profile "$limit" "$rp" profile -q -o "$work/p-$name" -- "./${app[0]}" "${app[@]:1}"
    cp "$work/p-$name/profile.json" "$work/logs/$name.profile.json" 2>/dev/null
    step "$name" analyze-dir 60 "$rp" analyze "$work/p-$name"
    step "$name" analyze-db 60 "$rp" analyze "$work/p-$name/profile.db"
}

# library_kernel NAME HEADER KERNEL_REGEX APP ARGS...: a program whose kernels are a library's
# (thrust's are CUB's, in the toolkit's headers): kernels on the library header that defines
# them, capture of one of them and replay --check; nothing to optimize in the user's tree.
library_kernel() {
    local name=$1 header=$2 kre=$3
    shift 3
    local app=("$@") hdr
    hdr=$(find /usr/local/cuda/ -path "*/include/cccl/$header" 2>/dev/null | head -1)
    [ -n "$hdr" ] || hdr=$(find /usr/local/cuda/ -path "*/include/$header" 2>/dev/null | head -1)
    step "$name" kernels 60 "$rp" kernels "${hdr:-$header}" \
        --build 'nvcc -O3 -std=c++17 -arch={arch} {src} -o {out}'
    step "$name" capture "$limit" "$rp" capture --kernel "$kre" -o "$work/snap-$name" \
        -- "./${app[0]}" "${app[@]:1}"
    step "$name" replay-check 60 "$rp" replay full-vm "$work/snap-$name" --check
}

# program NAME ROOT SOURCE KERNEL_REGEX BUILD_CMD [OPTIMIZE_OPTION...] -- APP ARGS...: ROOT is
# the project's folder below corpus/src (the user's repository: committed into a scratch git
# repository), SOURCE the kernel source in it ("": no kernel of its own; with a KERNEL_REGEX
# and BUILD_CMD "library:HEADER", the library header that defines it), BUILD_CMD optimize's
# --build; the OPTIMIZE_OPTIONs replace `--max-kernels 1 --app-rounds 2` (a program whose
# every run is long) and are llm-optimize's too.
program() {
    local name=$1 root=$2 source=$3 kre=$4 build=$5 opts=() llm_opts=()
    shift 5
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        opts+=("$1")
        shift
    done
    shift
    [ ${#opts[@]} -gt 0 ] && llm_opts=("${opts[@]}")
    [ ${#opts[@]} -gt 0 ] || opts=(--max-kernels 1 --app-rounds 2)
    local app=("$@") repo=$work/repo-$name steps=${CORPUS_STEPS:-all}
    case " ${CORPUS_PROGRAMS:-$name} " in *" $name "*) ;; *) return 0 ;; esac
    mkdir -p "$work/run"
    cp "$bin/${app[0]}" "$work/run/"
    [ "$steps" = pipeline ] || program_profile "$name" "${app[@]}"
    if [ -z "$source" ] && [ -n "$kre" ] && [ "$steps" != profile ]; then
        library_kernel "$name" "${build#library:}" "$kre" "${app[@]}"
        return 0
    fi
    [ -n "$source" ] && [ "$steps" != profile ] || return 0
    mkdir -p "$repo"
    cp -r "$src/$root/." "$repo/"
    git -C "$repo" init -q -b main && git -C "$repo" add . &&
        git -C "$repo" -c user.name=check -c user.email=check@localhost commit -q -m src
    local extra=() kextra=()
    if [ "$has_build" = yes ] && [ -n "$build" ]; then
        extra=(--build "$build")
        kextra=(--build "${build//\{dir\}/$repo}")
    fi
    step "$name" kernels 60 "$rp" kernels "$repo/$source" "${kextra[@]}"
    step "$name" capture "$limit" "$rp" capture --kernel "$kre" -o "$work/snap-$name" \
        -- "./${app[0]}" "${app[@]:1}"
    step "$name" replay-check 60 "$rp" replay full-vm "$work/snap-$name" --check
    # The stand-in answer (the program's own faster variant) first: a known-faster candidate
    # is the one that must reach the measurement; optimize's unroll proposals take the rest.
    if [ -d "$bundle/answers/$name" ]; then
        serve "$name"
        OPENAI_API_KEY=$key step "$name" llm-optimize "$opt_limit" "$rp" llm-optimize \
            "$repo/$source" "./${app[0]} ${app[*]:1}" --base-url "$url" --model standin-model \
            --artifacts "$work/art-$name-llm" --rounds 4 --app-rounds 2 --max-iters 1 \
            --max-repairs 0 --auto-approve "${llm_opts[@]}" "${extra[@]}"
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    step "$name" optimize "$opt_limit" "$rp" optimize "$repo/$source" "./${app[0]} ${app[*]:1}" \
        --artifacts "$work/art-$name-opt" --rounds 4 "${opts[@]}" --auto-approve "${extra[@]}"
    git -C "$repo" for-each-ref --format='%(refname:short)' refs/heads/rocm-perf/ \
        >"$work/logs/$name.branches" 2>&1
    for b in $(cat "$work/logs/$name.branches"); do
        git -C "$repo" log -1 --format='--- %h %s%n%b' "$b"
    done >>"$work/logs/$name.branches" 2>&1
    git -C "$repo" status --porcelain >"$work/logs/$name.status" 2>&1
    # The artifacts' reports and logs (not their snapshots: too large to bring back).  find's
    # -size -1M would round every size up to a whole MiB and keep only empty files.
    local a
    for a in opt llm; do
        [ -d "$work/art-$name-$a" ] || continue
        mkdir -p "$work/logs/$name.art-$a"
        (cd "$work/art-$name-$a" && find . -path ./snapshots -prune -o -type f -size -1024k \
            -print0 | tar --null -cf - -T -) |
            tar -xf - -C "$work/logs/$name.art-$a"
    done
}

# CORPUS_BENCH=no: only the programs (not the demo trace and the benchmark).
if [ "${CORPUS_BENCH:-yes}" = yes ]; then
# The README's demo trace: two_streams (gpu/cupti/two_streams.cu) with counters on every
# dispatch, so that every kernel is placed on the roofline.
mkdir -p "$work/run"
cp "$bin/two_streams" "$work/run/"
demo_sample=()
"$rp" profile --help 2>&1 | grep -q -- '--counter-dispatches' && demo_sample=(--counter-dispatches all)
step demo profile "$limit" "$rp" profile "${demo_sample[@]}" -q -o "$work/demo" -- ./two_streams
cp "$work/demo/profile.db" "$out/two_streams_profile.db" 2>/dev/null

# The benchmark: the program of >= 10k launches alone, then `profile` with counters (the
# default sample), three times each, alternating.
cp "$bin/layernorm_forward" "$work/run/"
for i in 1 2 3; do
    step bench "run-$i" "$limit" ./layernorm_forward 3
    step bench "profile-$i" "$limit" "$rp" profile -v -o "$work/bench" -- ./layernorm_forward 3
done
fi

program layernorm karpathy+llm.c/dev/cuda layernorm_forward.cu 'layernorm_forward_kernel3' \
    'nvcc -O3 --use_fast_math -std=c++17 -arch={arch} {src} -lcublas -lcublasLt -o {out}' \
    -- layernorm_forward 3
program reduction NVIDIA+cuda-samples \
    Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu 'reduce1' \
    'nvcc -O3 -arch={arch} -I{dir}/Common {dir}/Samples/2_Concepts_and_Techniques/reduction/reduction.cpp {src} -o {out}' \
    -- reduction --kernel=1
program sgemm siboehm+SGEMM_CUDA src/kernels/5_kernel_2D_blocktiling.cuh 'sgemm2DBlocktiling' \
    'nvcc -O3 -std=c++20 -arch={arch} -I{dir}/src -include {src} {dir}/sgemm.cu {dir}/src/runner.cu -lcublas -o {out}' \
    -- sgemm 5
program radixsort NVIDIA+cuda-samples '' 'DeviceRadixSortOnesweepKernel' \
    'library:cub/device/dispatch/kernels/radix_sort.cuh' -- radixSortThrust
# Its CPU reference (77 G multiply-adds, OpenMP) makes every run about 9 s: no whole-program
# profiles in optimize (--no-app: the kernel named, no ranking), one shape (kernel 4 fixes its
# block size, so all 404 dispatches have the same geometry and arguments).
program matmul karpathy+llm.c/dev/cuda matmul_forward.cu 'matmul_forward_kernel4' \
    'nvcc -O3 --use_fast_math -std=c++17 -arch={arch} -Xcompiler -fopenmp {src} -lcublas -lcublasLt -o {out}' \
    --no-app --kernel matmul_forward_kernel4 --shapes 1 -- matmul_forward 4
# Its naive kernel 1 (one output per thread, every load from global memory) against the
# stand-in answer written from the program's own kernel 4 (its 128-bit loads): the pipeline
# only (each run of the program is long: its CPU reference and 404 launches of kernel 1).
program matmul1 karpathy+llm.c/dev/cuda matmul_forward.cu 'matmul_forward_kernel1' \
    'nvcc -O3 --use_fast_math -std=c++17 -arch={arch} -Xcompiler -fopenmp {src} -lcublas -lcublasLt -o {out}' \
    --no-app --kernel matmul_forward_kernel1 --shapes 1 --timeout 240 -- matmul_forward 1
# ROCm's HIP examples, built for the NVIDIA platform as build.sh builds them (nvcc -x cu,
# HIP's headers from corpus/hip-include, __HIP_PLATFORM_NVIDIA__).  optimize's code object
# is built by its default nvcc line, which takes -I/-D options and not --build's words.
hipinc=$bundle/corpus/hip-include
hipbuild="nvcc -x cu -O3 -std=c++17 -arch={arch} -D__HIP_PLATFORM_NVIDIA__ -isystem $hipinc -I{dir}/Common {src} -o {out}"
program hipmatmul ROCm+rocm-examples HIP-Basic/matrix_multiplication/main.hip \
    'matrix_multiplication_kernel' "$hipbuild" --max-kernels 1 --app-rounds 2 \
    -I "$hipinc" -I "$work/repo-hipmatmul/Common" -D __HIP_PLATFORM_NVIDIA__ -- hip_matmul
program hipcg ROCm+rocm-examples HIP-Basic/cooperative_groups/main.hip 'vector_reduce_kernel' \
    "$hipbuild" --max-kernels 1 --app-rounds 2 \
    -I "$hipinc" -I "$work/repo-hipcg/Common" -D __HIP_PLATFORM_NVIDIA__ -- hip_cg
# The same program with its other kernels: longer runs of >= 10k launches (kernel 2 makes
# three launches per call).
[ "${CORPUS_BENCH:-yes}" = yes ] && for k in 1 2; do
    step bench "run-k$k" "$limit" ./layernorm_forward "$k"
    step bench "profile-k$k" "$limit" "$rp" profile -o "$work/bench" -- ./layernorm_forward "$k"
done
tr '\t' '|' <"$tsv" | tee "$out/summary.txt"
tar -czf "$out/profiles.tar.gz" -C "$work" $(cd "$work" && ls -d p-* 2>/dev/null | sed 's|$|/profile.json|') \
    2>/dev/null
exit 0
