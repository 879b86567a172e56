#!/bin/sh
# run_case.sh TABLE CASE
#
# Run the row CASE of the bad-input table TABLE (cases.tsv: name, exit code,
# message regex, command, separated by tabs) through expect_exit.sh: the
# command runs under sh -c with the environment ctest gives (RP, W, OBJ, ...)
# and must exit with the code and one stderr line "rocm-perf: <regex...>".
set -u
if [ $# -ne 2 ]; then
    echo "usage: run_case.sh TABLE CASE" >&2
    exit 2
fi
tab=$(printf '\t')
row=$(awk -F "$tab" -v c="$2" '$1 == c' "$1")
if [ -z "$row" ]; then
    echo "run_case.sh: no case '$2' in $1" >&2
    exit 2
fi
IFS=$tab read -r name code regex command <<ROW
$row
ROW
echo "$name: $command"
exec sh "$(dirname "$0")/../integration/expect_exit.sh" "$code" "^rocm-perf: $regex" -- \
    sh -c "$command"
