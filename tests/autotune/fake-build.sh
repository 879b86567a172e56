#!/bin/sh
# TEST DOUBLE, not a compiler: plays the build of a compile-time parameter for
# the autotune tests.  fake-build.sh OBJECTIVE EXTRA_NS OUT writes OUT, a
# program that runs the synthetic objective with --extra-ns EXTRA_NS (so each
# build differs in its bytes and its runtime), and logs the build to
# $FAKE_BUILD_LOG when set.  EXTRA_NS 9999 "does not compile": exit 1 with a
# compiler-like message on stderr.
set -u
[ $# -eq 3 ] || { echo "usage: fake-build.sh OBJECTIVE EXTRA_NS OUT" >&2; exit 64; }
if [ -n "${FAKE_BUILD_LOG:-}" ]; then
    echo "$2 $3" >>"$FAKE_BUILD_LOG"
fi
if [ "$2" = 9999 ]; then
    echo "kernel.cu:12: error: EXTRA_NS=9999 does not compile" >&2
    exit 1
fi
printf '#!/bin/sh\nexec "%s" --extra-ns %s "$@"\n' "$1" "$2" >"$3" && chmod +x "$3"
