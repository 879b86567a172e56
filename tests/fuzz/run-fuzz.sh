#!/bin/sh
# tests/fuzz/run-fuzz.sh [SECONDS [TARGET [LIBFUZZER_OPTION...]]]
# tests/fuzz/run-fuzz.sh --list
#
# Configure build/fuzz with clang, libFuzzer and ASan+UBSan, build the fuzz
# TARGET (default fuzz_rocpd_reader) with its seeds, and fuzz it for SECONDS
# (default 60).  --list prints the fuzz targets of the tree.  Seeds, dictionary
# and -max_len come from build/fuzz/fuzz-targets.tsv, written by CMake from the
# rpl_fuzz_corpus() calls next to each target (tests/fuzz/fuzz_targets.cmake).
# The working corpus stays in build/fuzz/tests/fuzz/corpus-TARGET between
# runs; crashes land in build/fuzz/tests/fuzz/artifacts/TARGET-*.
set -eu
usage="usage: run-fuzz.sh [SECONDS [TARGET [LIBFUZZER_OPTION...]]] | --list"
die() {
    echo "run-fuzz.sh: $2" >&2
    exit "$1"
}
list=
case ${1:-} in
--list) list=1 ;;
-h | --help) echo "$usage" && exit 0 ;;
esac
secs=${1:-60}
target=${2:-fuzz_rocpd_reader}
if [ -z "$list" ]; then
    case $secs in '' | *[!0-9]*) die 2 "SECONDS is a whole number, not '$secs' ($usage)" ;; esac
    [ "$secs" -gt 0 ] || die 2 "SECONDS must be more than 0 ($usage)"
    if [ $# -gt 2 ]; then shift 2; else set --; fi
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/fuzz"
table="$build/fuzz-targets.tsv"
command -v clang >/dev/null || die 3 "clang not found (libFuzzer needs clang)"
CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRPL_BUILD_FUZZERS=ON -DRPL_SANITIZE=ON >/dev/null ||
    die 3 "configuring $build failed"
[ -s "$table" ] || die 3 "$table is missing or empty"
if [ -n "$list" ]; then
    cut -f1 "$table" | sort
    exit 0
fi

tab=$(printf '\t')
row=$(awk -F "$tab" -v t="$target" '$1 == t' "$table")
if [ -z "$row" ]; then
    echo "run-fuzz.sh: no fuzz target '$target'; the targets are:" >&2
    cut -f1 "$table" | sort >&2
    exit 2
fi
# Empty fields are "-"; the seed folders are the rest of the row, one a field.
IFS=$tab read -r name program maxlen dict needs seed_tests seeds <<EOF
$row
EOF
[ "$needs" = - ] && needs=
[ "$seeds" = - ] && seeds=
# shellcheck disable=SC2086 # target names, one a word
cmake --build "$build" -j2 --target "$name" $needs
if [ "$seed_tests" != - ]; then
    ctest --test-dir "$build" -R "^($(echo "$seed_tests" | tr ' ' '|'))\$" >/dev/null ||
        die 3 "writing the seeds of $name failed (ctest --test-dir $build -R '$seed_tests')"
fi
dir="$build/tests/fuzz"
mkdir -p "$dir/corpus-$name" "$dir/artifacts"
[ "$maxlen" = - ] && maxlen= || maxlen=-max_len=$maxlen
[ "$dict" = - ] && dict= || dict=-dict=$dict
set -f
IFS=$tab # $seeds: the seed folders, split at tabs
# shellcheck disable=SC2086
exec "$program" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 ${maxlen:+"$maxlen"} \
    ${dict:+"$dict"} -artifact_prefix="$dir/artifacts/$name-" -print_final_stats=1 "$@" \
    "$dir/corpus-$name" $seeds
