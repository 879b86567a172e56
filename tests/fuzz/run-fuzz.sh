#!/bin/sh
# tests/fuzz/run-fuzz.sh [SECONDS] [TARGET]
#
# Configure build/fuzz with clang, libFuzzer and ASan+UBSan, build a fuzzer
# (TARGET: fuzz_rocpd_reader, the default, fuzz_commit_msg, fuzz_baseline or
# fuzz_target_json)
# and its seed corpus, and fuzz for SECONDS (default 60).  The working corpus stays in
# build/fuzz/tests/fuzz/corpus[-TARGET] between runs; crashes land in
# build/fuzz/tests/fuzz/artifacts/.
set -eu
secs=${1:-60}
target=${2:-fuzz_rocpd_reader}
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/fuzz"
CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRPL_BUILD_FUZZERS=ON -DRPL_SANITIZE=ON >/dev/null
dir="$build/tests/fuzz"
case $target in fuzz_commit_msg | fuzz_baseline | fuzz_target_json)
    maxlen=4096 dict=
    if [ "$target" = fuzz_baseline ]; then
        maxlen=16384
        dict=-dict="$root/tests/fuzz/baseline.dict"
    fi
    cmake --build "$build" -j2 --target "$target"
    mkdir -p "$dir/corpus-$target" "$dir/artifacts"
    exec "$dir/$target" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
        -max_len="$maxlen" ${dict:+"$dict"} -artifact_prefix="$dir/artifacts/" \
        -print_final_stats=1 "$dir/corpus-$target" "$root/tests/fuzz/seeds/${target#fuzz_}"
esac
cmake --build "$build" -j2 --target fuzz_rocpd_reader fuzz_rocpd_reader_seeds
mkdir -p "$dir/corpus" "$dir/artifacts"
exec "$dir/fuzz_rocpd_reader" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
    -max_len=262144 -dict="$root/tests/fuzz/rocpd.dict" -artifact_prefix="$dir/artifacts/" \
    -print_final_stats=1 "$dir/corpus" "$dir/seeds"
