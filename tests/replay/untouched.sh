#!/bin/sh
# untouched.sh DIR -- COMMAND [ARGS...]
#
# Run COMMAND and pass only when it passes and DIR (a snapshot) is exactly
# as before: the same entries, sizes, modification times and contents.
set -u
if [ $# -lt 3 ] || [ "$2" != "--" ]; then
    echo "usage: untouched.sh DIR -- COMMAND [ARGS...]" >&2
    exit 2
fi
dir=$1
shift 2
state() {
    (cd "$dir" && find . -printf '%p %y %s %T@\n' | sort && find . -type f -exec sha256sum {} + | sort)
}
before=$(state) || exit 1
"$@"
rc=$?
after=$(state) || exit 1
if [ "$before" != "$after" ]; then
    echo "FAIL: '$dir' changed while running: $*" >&2
    exit 1
fi
exit $rc
