#!/bin/sh
# Fails when a C source or header under src/, tests/ or bench/ differs from
# what clang-format makes of it with the repository's .clang-format.
# usage: check_format.sh CLANG_FORMAT SOURCE_DIR
set -eu
clang_format=$1
cd "$2"
files=$(find src tests bench gpu -name '*.c' -o -name '*.h' 2>/dev/null | sort)
[ -n "$files" ] || { echo "check_format: no C files found" >&2; exit 1; }
bad=0
for f in $files; do
    if ! "$clang_format" --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f (run: clang-format -i $f)" >&2
        bad=1
    fi
done
exit $bad
