#!/bin/sh
# gen_seeds.sh RPL_FIXTURE SQLITE3 FIXTURES_DIR OUTDIR
#
# Seed corpus for fuzz_rocpd_reader: every fixture description written as a
# rocpd database, plus variants that take the reader's other paths (no
# metadata, no views), each rewritten with 512-byte pages so the images stay
# small for the fuzzer.
set -eu
fixture=$1
sqlite3=$2
fixtures=$3
out=$4
mkdir -p "$out"
for desc in "$fixtures"/*.json; do
    name=$(basename "$desc" .json)
    "$fixture" "$desc" "$out/$name.db"
    "$fixture" "$desc" "$out/${name}_no_metadata.db" \
        --sql "DROP VIEW rocpd_metadata" --sql "DROP TABLE rocpd_metadata{{uuid}}"
    cp "$out/$name.db" "$out/${name}_no_views.db"
    views=$("$sqlite3" "$out/${name}_no_views.db" \
        "SELECT group_concat('DROP VIEW \"' || name || '\"', ';') FROM sqlite_master WHERE type = 'view'")
    "$sqlite3" "$out/${name}_no_views.db" "$views"
done
for db in "$out"/*.db; do
    "$sqlite3" "$db" "PRAGMA page_size = 512; VACUUM;"
done
