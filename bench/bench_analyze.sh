#!/bin/sh
# bench_analyze.sh: time `rocm-perf analyze --out` on synthetic rocpd databases
# next to a plain sqlite3 ordered scan of the dispatch table (the floor).
#
# usage: bench/bench_analyze.sh [-b BUILD_DIR] [-w WORK_DIR] [-r RUNS] [--10m]
#   -b BUILD_DIR  where rocm-perf and rpl_gen_rocpd were built (default build/dev)
#   -w WORK_DIR   where the databases and outputs go (default $TMPDIR or /tmp, + rpl-bench)
#   -r RUNS       runs per measurement, the best is reported (default 3)
#   --10m         also 10M dispatches + 1M copies over 8 queues (about 2 GB of disk)
# Databases are generated once per size and seed and kept in WORK_DIR.
# Prints a Markdown table: wall seconds (best of RUNS), and CPU seconds
# (user + sys) and peak RSS of that best run, via /usr/bin/time, and the
# 1-minute load average before the row.  Before every run it waits (up to
# 10 minutes) until the CPU pressure (/proc/pressure/cpu, 10 s average) is
# under 5%.  On a shared machine the CPU time is the steadier number (the
# reader and the analysis use two threads, so CPU may exceed wall).
set -eu

build=build/dev
work="${TMPDIR:-/tmp}/rpl-bench"
runs=3
big=0
while [ $# -gt 0 ]; do
    case "$1" in
    -b) build=$2; shift 2 ;;
    -w) work=$2; shift 2 ;;
    -r) runs=$2; shift 2 ;;
    --10m) big=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "bench_analyze.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

rocm_perf="$build/src/cli/rocm-perf"
gen="$build/bench/rpl_gen_rocpd"
for tool in "$rocm_perf" "$gen"; do
    [ -x "$tool" ] || { echo "bench_analyze.sh: '$tool' not built (cmake --build $build)" >&2; exit 3; }
done
command -v sqlite3 >/dev/null || { echo "bench_analyze.sh: sqlite3 not found" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "bench_analyze.sh: /usr/bin/time not found (Debian package 'time')" >&2; exit 3; }
mkdir -p "$work"

# quiet: wait until no other task waits for a CPU (a busy second core slows both threads).
quiet() {
    waited=0
    while [ "$waited" -lt 600 ]; do
        pressure=$(sed -n 's/^some avg10=\([0-9.]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null)
        if [ -z "$pressure" ] || awk "BEGIN { exit !($pressure < 5) }"; then
            return 0
        fi
        sleep 1
        waited=$((waited + 1))
    done
    echo "bench_analyze.sh: the CPU is still busy after 10 minutes; measuring anyway" >&2
}

# best_of CMD...: run RUNS times; prints "<best wall s> <peak RSS KB> <CPU s>" of the best run.
best_of() {
    best=""
    i=0
    while [ "$i" -lt "$runs" ]; do
        quiet
        /usr/bin/time -f '%e %M %U %S' -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || {
            echo "bench_analyze.sh: failed: $*" >&2
            cat "$work/stderr.txt" >&2
            exit 1
        }
        read -r wall rss user sys < "$work/time.txt"
        if [ -z "$best" ] || awk "BEGIN { exit !($wall < $best) }"; then
            best=$wall
            best_rss=$rss
            best_cpu=$(awk "BEGIN { printf \"%.2f\", $user + $sys }")
        fi
        i=$((i + 1))
    done
    echo "$best $best_rss $best_cpu"
}

row() { # row NAME DISPATCHES QUEUES COPIES
    name=$1
    db="$work/$name.db"
    if [ ! -f "$db" ]; then
        "$gen" --dispatches "$2" --queues "$3" --copies "$4" --kernels 64 --seed 1 "$db" >/dev/null
    fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    suffix=$(sqlite3 "$db" "SELECT value FROM rocpd_metadata WHERE tag = 'uuid'")
    set -- $(best_of sqlite3 "$db" "SELECT * FROM rocpd_kernel_dispatch$suffix ORDER BY start")
    scan=$1
    rm -rf "$work/out-$name"
    set -- $(best_of "$rocm_perf" analyze "$db" --out "$work/out-$name" -q)
    size=$(du -m "$db" | cut -f1)
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$size" "$scan" "$1" "$3" \
        "$(awk "BEGIN { printf \"%.2f\", $1 / ($scan > 0 ? $scan : 0.01) }")" "$(($2 / 1024))" "$load"
}

echo "rocm-perf analyze --out benchmark, $(date -u +%Y-%m-%d), $(nproc) cores," \
     "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), best of $runs"
echo
echo '| trace | DB MB | sqlite3 scan s | analyze --out s | analyze CPU s | ratio | peak RSS MB | load |'
echo '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'
row 10k-4q 10000 4 0
row 100k-4q 100000 4 0
row 1M-4q 1000000 4 0
row 1M-8q-100k-copies 1000000 8 100000
if [ "$big" = 1 ]; then
    row 10M-8q-1M-copies 10000000 8 1000000
fi
