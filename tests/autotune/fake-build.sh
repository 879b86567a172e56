#!/bin/sh
# TEST DOUBLE, not a compiler: plays the build of a compile-time parameter for
# the autotune tests.  fake-build.sh OBJECTIVE EXTRA_NS OUT writes OUT, a
# program that runs the synthetic objective with --extra-ns EXTRA_NS (so each
# build differs in its bytes and its runtime), and logs the build to
# $FAKE_BUILD_LOG when set.  EXTRA_NS 9999 "does not compile": exit 1 with a
# compiler-like message on stderr.
# With $FAKE_BUILD_EVENTS, "build-start E" and "build-end E" lines go to that
# file too; with $FAKE_BUILD_AWAIT_RUN=N as well, the N-th build to start
# waits (60 s at most, then logs "build-gave-up E") until the file holds a
# line of a run (the objective's --log lines start with a digit), so a tuner
# that measures only after every build shows as a run after the last build.
set -u
[ $# -eq 3 ] || { echo "usage: fake-build.sh OBJECTIVE EXTRA_NS OUT" >&2; exit 64; }
if [ -n "${FAKE_BUILD_LOG:-}" ]; then
    echo "$2 $3" >>"$FAKE_BUILD_LOG"
fi
if [ -n "${FAKE_BUILD_EVENTS:-}" ]; then
    echo "build-start $2" >>"$FAKE_BUILD_EVENTS"
    if [ "$(grep -c '^build-start' "$FAKE_BUILD_EVENTS")" = "${FAKE_BUILD_AWAIT_RUN:-0}" ]; then
        tries=0
        while ! grep -q '^[0-9]' "$FAKE_BUILD_EVENTS"; do
            tries=$((tries + 1))
            if [ $tries -gt 600 ]; then
                echo "build-gave-up $2" >>"$FAKE_BUILD_EVENTS"
                break
            fi
            sleep 0.1
        done
    fi
    trap 'echo "build-end $2" >>"$FAKE_BUILD_EVENTS"' EXIT
fi
if [ "$2" = 9999 ]; then
    echo "kernel.cu:12: error: EXTRA_NS=9999 does not compile" >&2
    exit 1
fi
printf '#!/bin/sh\nexec "%s" --extra-ns %s "$@"\n' "$1" "$2" >"$3" && chmod +x "$3"
