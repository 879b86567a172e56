#!/bin/sh
# capture_cli.sh ROCM_PERF LIBRPL_HSA FAKE_APP FIXTURE WORK VALIDATE SCHEMA
#
# rocm-perf capture --backend hsa through the real binary, with the real
# librpl_hsa.so, and fake_hsa_app (a stand-in application playing ROCr and
# a HIP program) as APP: dispatch 1 of increment is captured, the
# application runs to its end, the snapshot follows the schema and records
# that the application ran without ASLR.
set -eu
rp=$1 lib=$2 app=$3 fixture=$4 work=$5 validate=$6 schema=$7
rm -rf "$work"
mkdir -p "$work"
out=$(ROCM_PERF_HSA_LIB=$lib "$rp" capture --backend hsa --kernel '^increment\(' --dispatch 1 \
    --out "$work/snap" -- "$app" "$fixture" 2>"$work/stderr") || {
    echo "capture failed:"; cat "$work/stderr"; exit 1; }
echo "$out"
echo "$out" | grep -q "^Snapshot: $work/snap\$"
echo "$out" | grep -q '^Kernel: increment(int\*, float) (dispatch 1)$'
echo "$out" | grep -q '^ASLR: off$'
grep -q '^rocm-perf capture: wrote ' "$work/stderr"
for f in dispatch memory_regions; do
    /usr/bin/python3 "$validate" "$schema" "$work/snap/$f.json"
done
/usr/bin/python3 - "$work/snap/dispatch.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["backend"] == "hsa" and d["arch"] == "gfx90a", d
assert d["capture"]["aslr_disabled"] is True, d["capture"]
assert d["capture"]["dispatch_index"] == 1
assert d["kernel"]["symbol"] == "_Z9incrementPif.kd"
assert [g["name"] for g in d["globals"]] == ["counter"]
PY
# A second capture into the same directory is refused and leaves it alone.
before=$(cd "$work/snap" && ls -lR --time-style=+%s . | md5sum)
if ROCM_PERF_HSA_LIB=$lib "$rp" capture --backend hsa --out "$work/snap" -- "$app" "$fixture" \
        2>/dev/null; then
    echo "a capture over an existing snapshot succeeded"; exit 1
fi
after=$(cd "$work/snap" && ls -lR --time-style=+%s . | md5sum)
[ "$before" = "$after" ]
echo "ok"
