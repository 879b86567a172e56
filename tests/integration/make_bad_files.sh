#!/bin/sh
# make_bad_files.sh OUTDIR GOOD.db SQLITE3
#
# Damaged inputs that are not made by SQL: a rocpd database cut in half, a
# text file, an empty file, and an SQLite database without tables.
set -eu
out=$1
good=$2
sqlite3=$3
mkdir -p "$out"
size=$(wc -c <"$good")
head -c $((size / 2)) "$good" >"$out/truncated.db"
i=0
: >"$out/not_sqlite.db"
while [ $i -lt 200 ]; do
    echo "this is a text file, not an SQLite database ($i)" >>"$out/not_sqlite.db"
    i=$((i + 1))
done
: >"$out/empty_file.db"
rm -f "$out/empty_sqlite.db"
"$sqlite3" "$out/empty_sqlite.db" "PRAGMA user_version = 7"
