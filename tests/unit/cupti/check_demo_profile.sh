#!/bin/sh
# The README's demo profile (tests/fixtures/recorded/two_streams_profile.db, a
# counter profile recorded on an H200): every kernel is placed on the roofline
# that scripts/demo.sh draws, and every dispatch carries the counters.
# usage: check_demo_profile.sh ROCM_PERF DB OUT_DIR
set -u
rp=$1 db=$2 out=$3
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
rm -rf "$out"
"$rp" analyze "$db" --out "$out" -q >"$out.table" || fail "analyze exited $?"
"$rp" report "$out" --roofline-svg "$out/roofline.svg" -q >/dev/null || fail "report exited $?"
grep -q '<svg' "$out/roofline.svg" || fail "no roofline drawn"
! grep -q 'not placed' "$out/roofline.svg" || fail "$(grep -o 'not placed[^<]*' "$out/roofline.svg")"
grep -q 'produce' "$out/roofline.svg" && grep -q 'consume' "$out/roofline.svg" ||
    fail "the roofline names neither kernel"
! grep -q '^counters: measured on' "$out.table" || fail "not every dispatch has counters"
exit 0
