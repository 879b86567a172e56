#!/bin/sh
# The main job on a built-in default:
#  1. build rocm-perf-lab (dev preset) with its own perf suite (ctest/);
#  2. run the perf suite: the static gates (registers, LDS, scratch,
#     occupancy of the compiled kernels against baselines/) everywhere, the
#     dynamic runtime gates where a GPU is present (skipped, exit 77, without);
#  3. summarise a bundled profile recorded on a real NVIDIA H200 (two streams
#     joined by an event, with the roofline counters of every dispatch;
#     tests/fixtures/recorded/README.md), print the report (the per-kernel
#     table and the critical path) and draw the roofline with every kernel on it.
# usage: scripts/demo.sh [TRACE.db]
set -eu
cd "$(dirname "$0")/.."
trace=${1:-tests/fixtures/recorded/two_streams_profile.db}
out=build/dev/demo-report

echo "== building (cmake --preset dev; cmake --build --preset dev)"
cmake --preset dev >/dev/null
cmake --build --preset dev -j2 >/dev/null
rpl=build/dev/src/cli/rocm-perf

echo "== the perf suite: ctest -L perf (dynamic gates skip without a GPU)"
ctest --test-dir build/dev -L perf --output-on-failure

echo
echo "== rocm-perf analyze $trace --out $out"
"$rpl" analyze "$trace" --out "$out"
echo
echo "== rocm-perf report $out --roofline-svg $out/roofline.svg"
"$rpl" report "$out" --roofline-svg "$out/roofline.svg"
echo
echo "JSON reports: $(ls "$out"/*.json | tr '\n' ' ')"
echo "roofline: $out/roofline.svg"
