#!/bin/sh
# bench_analyze.sh: time `rocm-perf analyze --out` on synthetic rocpd databases
# next to sqlite3 reading the same rows.
#
# usage: bench/bench_analyze.sh [-b BUILD_DIR] [-w WORK_DIR] [-r RUNS] [-p PCT] [--10m]
#   -b BUILD_DIR  where rocm-perf and rpl_gen_rocpd were built (default build/dev)
#   -w WORK_DIR   where the databases and outputs go (default $TMPDIR or /tmp, + rpl-bench)
#   -r RUNS       runs per measurement, the median is reported (default 3)
#   -p PCT        CPU pressure to wait for before each run (default 5; 100: no wait)
#   --10m         also 10M dispatches + 1M copies over 8 queues, without and with API
#                 regions (about 2 and 4 GB of disk)
# Databases are generated once per size and seed and kept in WORK_DIR.
# Prints a Markdown table: wall seconds (median of RUNS), and CPU seconds
# (user + sys) and peak RSS of that run, via /usr/bin/time, and the 1-minute
# load average before the row.  Two floors: the old one, sqlite3 ordering the
# dispatch rows by start, and the side by side one, sqlite3 scanning the
# dispatch rows and then the API region rows (SELECT *, one after the other);
# "vs scans" is analyze's wall time over the sum of those two scans.  Before
# every run it waits (up to 10 minutes) until the CPU pressure
# (/proc/pressure/cpu, 10 s average) is under PCT%.  On a shared machine the
# CPU time is the steadier number (the reader and the analysis use two
# threads, so CPU may exceed wall).
set -eu

build=build/dev
work="${TMPDIR:-/tmp}/rpl-bench"
runs=3
pressure_max=5
big=0
while [ $# -gt 0 ]; do
    case "$1" in
    -b) build=$2; shift 2 ;;
    -w) work=$2; shift 2 ;;
    -r) runs=$2; shift 2 ;;
    -p) pressure_max=$2; shift 2 ;;
    --10m) big=1; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
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
        if [ -z "$pressure" ] || awk "BEGIN { exit !($pressure < $pressure_max || $pressure_max >= 100) }"; then
            return 0
        fi
        sleep 1
        waited=$((waited + 1))
    done
    echo "bench_analyze.sh: the CPU is still busy after 10 minutes; measuring anyway" >&2
}

# median_of CMD...: run RUNS times; prints "<median wall s> <peak RSS KB> <CPU s>" of the median run.
median_of() {
    : > "$work/runs.txt"
    i=0
    while [ "$i" -lt "$runs" ]; do
        quiet
        /usr/bin/time -f '%e %M %U %S' -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || {
            echo "bench_analyze.sh: failed: $*" >&2
            cat "$work/stderr.txt" >&2
            exit 1
        }
        read -r wall rss user sys < "$work/time.txt"
        echo "$wall $rss $(awk "BEGIN { printf \"%.2f\", $user + $sys }")" >> "$work/runs.txt"
        i=$((i + 1))
    done
    sort -n "$work/runs.txt" | sed -n "$(( (runs + 1) / 2 ))p"
}

row() { # row NAME DISPATCHES QUEUES COPIES [GENERATOR OPTIONS]
    name=$1
    db="$work/$name.db"
    if [ ! -f "$db" ]; then
        "$gen" --dispatches "$2" --queues "$3" --copies "$4" --kernels 64 --seed 1 ${5:-} "$db" >/dev/null
    fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    suffix=$(sqlite3 "$db" "SELECT value FROM rocpd_metadata WHERE tag = 'uuid'")
    set -- $(median_of sqlite3 "$db" "SELECT * FROM rocpd_kernel_dispatch$suffix ORDER BY start")
    floor=$1
    set -- $(median_of sqlite3 "$db" "SELECT * FROM rocpd_kernel_dispatch$suffix")
    dscan=$1
    set -- $(median_of sqlite3 "$db" "SELECT * FROM rocpd_region$suffix")
    rscan=$1
    rm -rf "$work/out-$name"
    set -- $(median_of "$rocm_perf" analyze "$db" --out "$work/out-$name" -q)
    size=$(du -mL "$db" | cut -f1)
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$size" "$floor" \
        "$dscan" "$rscan" "$1" "$3" \
        "$(awk "BEGIN { printf \"%.2f\", $1 / ($floor > 0 ? $floor : 0.01) }")" \
        "$(awk "BEGIN { s = $dscan + $rscan; printf \"%.2f\", $1 / (s > 0 ? s : 0.01) }")" \
        "$(($2 / 1024))" "$load"
}

echo "rocm-perf analyze --out benchmark, $(date -u +%Y-%m-%d), $(nproc) cores," \
     "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), median of $runs"
echo
echo '| trace | DB MB | sqlite3 ordered scan s | dispatch scan s | region scan s |' \
     'analyze --out s | analyze CPU s | vs ordered scan | vs scans | peak RSS MB | load |'
echo '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'
row 10k-4q 10000 4 0
row 100k-4q 100000 4 0
row 1M-4q 1000000 4 0
row 1M-8q-100k-copies 1000000 8 100000
row 1M-8q-100k-copies-api 1000000 8 100000 --api
row 1M-8q-100k-copies-hip-args 1000000 8 100000 "--api --hip-args"
if [ "$big" = 1 ]; then
    row 10M-8q-1M-copies 10000000 8 1000000
    row 10M-8q-1M-copies-api 10000000 8 1000000 --api
fi
