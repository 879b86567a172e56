#!/bin/sh
# TEST DOUBLE, not a compiler: a build whose output differs in its bytes every
# time (an embedded build time, as nvcc and hipcc embed temporary names) while
# the GPU code it carries does not.  stamp-build.sh OBJECTIVE FATBIN EXTRA_NS OUT
# copies the synthetic objective to OUT with FATBIN (a recorded NVIDIA fatbin)
# as its .nv_fatbin section and the current time in nanoseconds as a .stamp
# section; OUT runs the objective with --extra-ns EXTRA_NS when given that as
# its first argument by the command template.  Logs to $FAKE_BUILD_LOG when set.
set -eu
[ $# -eq 4 ] || { echo "usage: stamp-build.sh OBJECTIVE FATBIN EXTRA_NS OUT" >&2; exit 64; }
if [ -n "${FAKE_BUILD_LOG:-}" ]; then
    echo "$3 $4" >>"$FAKE_BUILD_LOG"
fi
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
date +%s%N >"$stamp"
objcopy --add-section .nv_fatbin="$2" --add-section .stamp="$stamp" "$1" "$4"
