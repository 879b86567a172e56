#!/bin/sh
# tests/fuzz/run-fuzz.sh [SECONDS]
#
# Configure build/fuzz with clang, libFuzzer and ASan+UBSan, build the rocpd
# reader fuzzer and its seed corpus, and fuzz for SECONDS (default 60).  The
# working corpus stays in build/fuzz/tests/fuzz/corpus between runs; crashes
# land in build/fuzz/tests/fuzz/artifacts/.
set -eu
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/fuzz"
CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRPL_BUILD_FUZZERS=ON -DRPL_SANITIZE=ON >/dev/null
cmake --build "$build" -j2 --target fuzz_rocpd_reader fuzz_rocpd_reader_seeds
dir="$build/tests/fuzz"
mkdir -p "$dir/corpus" "$dir/artifacts"
exec "$dir/fuzz_rocpd_reader" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
    -max_len=262144 -dict="$root/tests/fuzz/rocpd.dict" -artifact_prefix="$dir/artifacts/" \
    -print_final_stats=1 "$dir/corpus" "$dir/seeds"
