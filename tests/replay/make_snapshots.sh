#!/bin/sh
# make_snapshots.sh SNAPFIX FIXTURES OUTDIR
#
# The snapshots of the replay CLI tests: good ones written by rpl_snapfix
# (the real writer) from fixtures/*.json, and damaged copies
# (make_bad_snapshots.py).  OUTDIR is emptied first.
set -eu
snapfix=$1
fixtures=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
for name in cuda_scale hsa_scale cuda_missing_symbol; do
    "$snapfix" "$fixtures/$name.json" "$out/$name"
done
/usr/bin/python3 "$(dirname "$0")/make_bad_snapshots.py" "$out/cuda_scale" "$out/bad"
