#!/bin/sh
# tests/fuzz/run-fuzz-llm.sh SECONDS reply|extract
#
# Fuzz the LLM client's reply parsers (fuzz_llm_reply) or its patch
# extraction (fuzz_patch_extract) for SECONDS under ASan+UBSan, in the
# clang build build/fuzz that run-fuzz.sh uses.  The working corpus stays in
# build/fuzz/tests/fuzz/corpus_<target>; crashes land in
# build/fuzz/tests/fuzz/artifacts/.
set -eu
secs=${1:?seconds}
case ${2:?reply or extract} in
reply) target=fuzz_llm_reply seeds=reply ;;
extract) target=fuzz_patch_extract seeds=extract ;;
*) echo "run-fuzz-llm.sh: target is reply or extract" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/fuzz"
CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRPL_BUILD_FUZZERS=ON -DRPL_SANITIZE=ON >/dev/null
cmake --build "$build" -j2 --target "$target"
dir="$build/tests/fuzz"
mkdir -p "$dir/corpus_$target" "$dir/artifacts"
exec "$dir/$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$root/tests/fuzz/llm.dict" -artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
    "$dir/corpus_$target" "$root/tests/fuzz/llm_seeds/$seeds"
