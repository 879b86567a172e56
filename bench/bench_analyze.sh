#!/bin/sh
# bench_analyze.sh: time `rocm-perf analyze --out` on synthetic rocpd databases
# next to sqlite3 reading the same rows.
#
# usage: bench/bench_analyze.sh [-b BUILD_DIR] [-c BUILD_DIR] [-w WORK_DIR] [-r RUNS] [-p PCT]
#                               [-o NAME] [--10m]
#   -b BUILD_DIR  where rocm-perf and rpl_gen_rocpd were built (default build/dev)
#   -c BUILD_DIR  another build (e.g. of the code before a change): its analyze --out runs
#                 in every round too, in the columns "other"
#   -w WORK_DIR   where the databases and outputs go (default $TMPDIR or /tmp, + rpl-bench)
#   -r RUNS       alternating runs per trace, the medians are reported (default 5)
#   -p PCT        CPU pressure to wait for before each run (default 5; 100: no wait)
#   -o NAME       only the trace NAME (e.g. 1M-8q-100k-copies-api)
#   --10m         also 10M dispatches + 1M copies over 8 queues, without and with API
#                 regions (about 2 and 4 GB of disk)
# Databases are generated once per size and seed and kept in WORK_DIR.
# The yardstick is sqlite3 decoding the rows analyze reads: the dispatch rows'
# and the API region rows' columns that the reader takes (src/trace/
# rocpd_read_records.c, rocpd_read_regions.c), ordered by start, printed to
# /dev/null; "vs narrow" is analyze's wall time over the sum of those two scans.
# The old yardstick, `SELECT *` of both tables unordered, is kept, labelled.
# Each run of a trace runs, in turn: the narrow dispatch scan, the narrow region
# scan, the two SELECT * scans, analyze --out; RUNS such rounds alternate them,
# and each column is the median over the rounds (CPU = user + sys of the
# median analyze run; peak RSS: the largest of the analyze runs, /usr/bin/time's KiB).  Before every
# command it waits (up to 10 minutes) until the CPU pressure (/proc/pressure/cpu,
# 10 s average) is under PCT%; the load column is the range of the 1-minute load
# average over the rounds.  On a shared machine say so with the numbers.
set -eu

build=build/dev
work="${TMPDIR:-/tmp}/rpl-bench"
runs=5
pressure_max=5
only=
other=
big=0
while [ $# -gt 0 ]; do
    case "$1" in
    -b) build=$2; shift 2 ;;
    -c) other=$2; shift 2 ;;
    -w) work=$2; shift 2 ;;
    -r) runs=$2; shift 2 ;;
    -p) pressure_max=$2; shift 2 ;;
    -o) only=$2; shift 2 ;;
    --10m) big=1; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "bench_analyze.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

rocm_perf="$build/src/cli/rocm-perf"
gen="$build/bench/rpl_gen_rocpd"
other_perf="${other:+$other/src/cli/rocm-perf}"
for tool in "$rocm_perf" "$gen" $other_perf; do
    [ -x "$tool" ] || { echo "bench_analyze.sh: '$tool' not built (cmake --build $build)" >&2; exit 3; }
done
command -v sqlite3 >/dev/null || { echo "bench_analyze.sh: sqlite3 not found" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "bench_analyze.sh: /usr/bin/time not found (Debian package 'time')" >&2; exit 3; }
mkdir -p "$work"

# The reader's columns (rd_read_dispatches, rd_read_regions).
dispatch_cols='id, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, end,
 private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z,
 grid_size_x, grid_size_y, grid_size_z, event_id'
region_cols='id, pid, tid, start, end, name_id, event_id'

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

# timed FILE CMD...: run once; appends "<wall s> <peak RSS KB> <CPU s>" to FILE.
timed() {
    file=$1
    shift
    quiet
    /usr/bin/time -f '%e %M %U %S' -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || {
        echo "bench_analyze.sh: failed: $*" >&2
        cat "$work/stderr.txt" >&2
        exit 1
    }
    read -r wall rss user sys < "$work/time.txt"
    echo "$wall $rss $(awk "BEGIN { printf \"%.2f\", $user + $sys }")" >> "$file"
}

# median FILE: the line of the median wall time.
median() {
    sort -n "$1" | sed -n "$(( (runs + 1) / 2 ))p"
}

row() { # row NAME DISPATCHES QUEUES COPIES [GENERATOR OPTIONS]
    name=$1
    [ -z "$only" ] || [ "$name" = "$only" ] || return 0
    db="$work/$name.db"
    if [ ! -f "$db" ]; then
        "$gen" --dispatches "$2" --queues "$3" --copies "$4" --kernels 64 --seed 1 ${5:-} "$db" >/dev/null
    fi
    suffix=$(sqlite3 "$db" "SELECT value FROM rocpd_metadata WHERE tag = 'uuid'")
    for f in nd nr sd sr an ot load; do : > "$work/$f.txt"; done
    i=0
    while [ "$i" -lt "$runs" ]; do
        cut -d' ' -f1 /proc/loadavg >> "$work/load.txt"
        timed "$work/nd.txt" sqlite3 "$db" \
            "SELECT $dispatch_cols FROM rocpd_kernel_dispatch$suffix ORDER BY start"
        timed "$work/nr.txt" sqlite3 "$db" "SELECT $region_cols FROM rocpd_region$suffix ORDER BY start"
        timed "$work/sd.txt" sqlite3 "$db" "SELECT * FROM rocpd_kernel_dispatch$suffix"
        timed "$work/sr.txt" sqlite3 "$db" "SELECT * FROM rocpd_region$suffix"
        rm -rf "$work/out-$name"
        timed "$work/an.txt" "$rocm_perf" analyze "$db" --out "$work/out-$name" -q
        if [ -n "$other" ]; then
            rm -rf "$work/out-$name"
            timed "$work/ot.txt" "$other_perf" analyze "$db" --out "$work/out-$name" -q
        fi
        i=$((i + 1))
    done
    nd=$(median "$work/nd.txt" | cut -d' ' -f1)
    nr=$(median "$work/nr.txt" | cut -d' ' -f1)
    sd=$(median "$work/sd.txt" | cut -d' ' -f1)
    sr=$(median "$work/sr.txt" | cut -d' ' -f1)
    set -- $(median "$work/an.txt")
    rss=$(sort -n -k2 "$work/an.txt" | tail -1 | cut -d' ' -f2)
    load="$(sort -n "$work/load.txt" | head -1) to $(sort -n "$work/load.txt" | tail -1)"
    size=$(du -mL "$db" | cut -f1)
    if [ -n "$other" ]; then
        ot=$(median "$work/ot.txt")
        ot_rss=$(sort -n -k2 "$work/ot.txt" | tail -1 | cut -d' ' -f2)
        other_cols=" $(echo "$ot" | cut -d' ' -f1) | $(echo "$ot" | cut -d' ' -f3) | $ot_rss |"
    else
        other_cols=
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s\n' "$name" "$size" \
        "$nd" "$nr" "$1" "$3" \
        "$(awk "BEGIN { s = $nd + $nr; printf \"%.2f\", $1 / (s > 0 ? s : 0.01) }")" \
        "$(awk "BEGIN { printf \"%.2f\", $1 / ($nd > 0 ? $nd : 0.01) }")" \
        "$rss" \
        "$sd" "$sr" \
        "$(awk "BEGIN { s = $sd + $sr; printf \"%.2f\", $1 / (s > 0 ? s : 0.01) }")" "$load" \
        "$other_cols"
}

echo "rocm-perf analyze --out benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores," \
     "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), median of $runs alternating runs"
echo
if [ -n "$other" ]; then
    echo "(other: $other)"
    other_head=' other analyze s | other CPU s | other peak RSS KiB |'
    other_rule=' ---: | ---: | ---: |'
else
    other_head=
    other_rule=
fi
echo
echo '| trace | DB MB | narrow dispatch scan s | narrow region scan s | analyze --out s |' \
     'analyze CPU s | vs narrow scans | vs narrow dispatch scan | peak RSS KiB |' \
     "SELECT * dispatch s | SELECT * region s | vs SELECT * scans | 1-min load |$other_head"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |$other_rule"
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
