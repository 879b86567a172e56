#!/bin/sh
# analyze_golden.sh: check that a build of rocm-perf writes the same bytes as
# a reference build from `analyze` (table, --json and every --out file), on
# every recorded fixture and on a few generated traces.
#
# usage: bench/analyze_golden.sh -b BUILD -g GOLDEN_DIR [-w WORK_DIR] [--make] [--big]
#   -b BUILD       the build to run (rocm-perf, rpl_gen_rocpd)
#   -g GOLDEN_DIR  where the reference outputs are (--make: are written)
#   -w WORK_DIR    generated traces and this run's outputs (default $TMPDIR or /tmp, + rpl-golden);
#                  the same for the reference and the check: analyze's table names the --out folder
#   --make         write GOLDEN_DIR from BUILD (run it with the unchanged code first)
#   --big          also the 1M-dispatch traces of bench_analyze.sh, with and without API regions
# Exits 1 and names the files that differ; 0 when every output is identical.
set -eu

build=
golden=
work="${TMPDIR:-/tmp}/rpl-golden"
make=0
big=0
while [ $# -gt 0 ]; do
    case "$1" in
    -b) build=$2; shift 2 ;;
    -g) golden=$2; shift 2 ;;
    -w) work=$2; shift 2 ;;
    --make) make=1; shift ;;
    --big) big=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "analyze_golden.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$build" ] && [ -n "$golden" ] || { sed -n '5,11p' "$0" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
rocm_perf="$build/src/cli/rocm-perf"
gen="$build/bench/rpl_gen_rocpd"
for tool in "$rocm_perf" "$gen"; do
    [ -x "$tool" ] || { echo "analyze_golden.sh: '$tool' not built" >&2; exit 3; }
done
mkdir -p "$work/traces" "$golden"

# trace NAME GENERATOR-OPTIONS: generated once, the same bytes for every build.
trace() {
    db="$work/traces/$1.db"
    [ -f "$db" ] || "$gen" $2 "$db" >/dev/null
    echo "$db"
}

# case NAME DB...: the three forms of analyze's output into DIR.
run_case() {
    name=$1
    shift
    dir="$work/run/$name"
    rm -rf "$dir"
    mkdir -p "$dir"
    "$rocm_perf" -q analyze "$@" --top 0 > "$dir/table.txt" || echo "exit $?" >> "$dir/table.txt"
    "$rocm_perf" -q analyze "$@" --json > "$dir/profile-stdout.json" || echo "exit $?" >> "$dir/profile-stdout.json"
    "$rocm_perf" -q analyze "$@" --out "$dir/out" > "$dir/out-stdout.txt" || echo "exit $?" >> "$dir/out-stdout.txt"
}

rm -rf "$work/run"
fixtures="$root/tests/fixtures/recorded"
for db in "$fixtures"/*.db; do
    run_case "$(basename "$db" .db)" "$db"
done
run_case merged "$fixtures/two_streams.db" "$fixtures/copies.db"
run_case gen-10k-hip-args "$(trace 10k-hip-args '--dispatches 10000 --copies 1000 --queues 8 --kernels 64 --seed 3 --api --hip-args')"
run_case gen-20k-waits "$(trace 20k-waits '--dispatches 20000 --copies 500 --queues 3 --kernels 16 --seed 5 --waits-every 50 --api')"
run_case gen-50k-noapi "$(trace 50k-noapi '--dispatches 50000 --copies 5000 --queues 8 --kernels 64 --seed 2')"
if [ "$big" = 1 ]; then
    run_case gen-1M-api "$(trace 1M-api '--dispatches 1000000 --copies 100000 --queues 8 --kernels 64 --seed 1 --api')"
    run_case gen-1M-noapi "$(trace 1M-noapi '--dispatches 1000000 --copies 100000 --queues 8 --kernels 64 --seed 1')"
fi

if [ "$make" = 1 ]; then
    rm -rf "$golden"
    mkdir -p "$golden"
    cp -r "$work/run/." "$golden/"
    echo "analyze_golden.sh: reference outputs written to $golden"
    exit 0
fi
# Only the cases this run made: the reference may also hold the --big ones.
status=0
for dir in "$work/run"/*; do
    name=$(basename "$dir")
    if ! diff -r -q "$golden/$name" "$dir"; then
        status=1
    fi
done
if [ "$status" = 0 ]; then
    echo "analyze_golden.sh: every output identical to $golden ($(ls "$work/run" | wc -l) cases)"
fi
exit "$status"
