#!/bin/sh
# The main job on a built-in default: build rocm-perf (dev preset), then
# summarise a bundled trace recorded on a real NVIDIA H200 (two streams
# joined by an event; see tests/fixtures/recorded/README.md) and print the
# report: the per-kernel table and the critical-path summary.
# usage: scripts/demo.sh [TRACE.db]
set -eu
cd "$(dirname "$0")/.."
trace=${1:-tests/fixtures/recorded/two_streams.db}
out=build/dev/demo-report

cmake --preset dev >/dev/null
cmake --build --preset dev -j2 --target rocm-perf >/dev/null
rpl=build/dev/src/cli/rocm-perf

echo "== rocm-perf analyze $trace --out $out"
"$rpl" analyze "$trace" --out "$out"
echo
echo "== rocm-perf report $out"
"$rpl" report "$out"
echo
echo "JSON reports: $(ls "$out"/*.json | tr '\n' ' ')"
