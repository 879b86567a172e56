#!/bin/sh
# expect_exit.sh CODE REGEX -- COMMAND [ARGS...]
#
# Run COMMAND and pass only when it exits with CODE (a crash never does) and
# writes exactly one line on stderr that matches the extended regular
# expression REGEX.  Used by ctest for bad inputs of rocm-perf.
set -u
if [ $# -lt 4 ] || [ "$3" != "--" ]; then
    echo "usage: expect_exit.sh CODE REGEX -- COMMAND [ARGS...]" >&2
    exit 2
fi
code=$1
regex=$2
shift 3
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT

"$@" >/dev/null 2>"$err"
rc=$?
if [ "$rc" -gt 128 ]; then
    echo "FAIL: killed by signal $((rc - 128)) (expected exit $code): $*" >&2
    cat "$err" >&2
    exit 1
fi
if [ "$rc" -ne "$code" ]; then
    echo "FAIL: exit $rc, expected $code: $*" >&2
    cat "$err" >&2
    exit 1
fi
# One line: exactly one newline, and it ends the text.
lines=$(wc -l <"$err")
if [ "$lines" -ne 1 ] || [ -n "$(tail -c 1 "$err")" ]; then
    echo "FAIL: stderr has $lines lines, expected exactly one:" >&2
    cat "$err" >&2
    exit 1
fi
if ! grep -Eq -- "$regex" "$err"; then
    echo "FAIL: stderr does not match '$regex':" >&2
    cat "$err" >&2
    exit 1
fi
echo "ok: exit $rc: $(cat "$err")"
