#!/bin/sh
# TEST DOUBLE, not rocm-perf: stands in for it in the <name>_tune targets of
# tests/package/tune and writes its arguments, one per line, to
# $RPL_TUNE_ARGV_LOG.
for a in "$@"; do
    printf '%s\n' "$a"
done >"${RPL_TUNE_ARGV_LOG:?}"
