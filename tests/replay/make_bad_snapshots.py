#!/usr/bin/python3
"""Damaged copies of a good snapshot, one fault each, for the CLI tests.

usage: make_bad_snapshots.py GOOD OUTDIR

Writes OUTDIR/<case> for every case below.  Where a case edits
memory_regions.json, its size and SHA-256 in dispatch.json are brought up
to date, so that the intended fault is the only one.
"""
import hashlib
import json
import os
import shutil
import sys


def regions_edit(snap, edit):
    path = os.path.join(snap, "memory_regions.json")
    with open(path) as f:
        doc = json.load(f)
    edit(snap, doc)
    data = json.dumps(doc, indent=1).encode()
    with open(path, "wb") as f:
        f.write(data)
    dpath = os.path.join(snap, "dispatch.json")
    with open(dpath) as f:
        disp = json.load(f)
    for entry in disp["files"]:
        if entry["path"] == "memory_regions.json":
            entry["size"] = len(data)
            entry["sha256"] = hashlib.sha256(data).hexdigest()
    with open(dpath, "w") as f:
        json.dump(disp, f, indent=1)


def truncated(snap):
    path = os.path.join(snap, "memory/region_7f0000000000.bin")
    with open(path, "r+b") as f:
        f.truncate(2048)


def flipped(snap):
    path = os.path.join(snap, "memory/region_7f0000000000.bin")
    with open(path, "r+b") as f:
        f.seek(1000)
        b = f.read(1)
        f.seek(1000)
        f.write(bytes([b[0] ^ 0x01]))


def missing_region(snap):
    os.remove(os.path.join(snap, "memory/region_7f0000200000.bin"))


def overlapping(snap):
    def edit(snap, doc):
        # The second region now starts inside the first (4096 bytes at 0x7f0000000000).
        r = doc["regions"][1]
        r["base"] = "0x7f0000000800"
        r["file"] = "memory/region_7f0000000800.bin"
        r["post_file"] = "memory/post/region_7f0000000800.bin"
        for old, new in (("memory/region_7f0000200000.bin", r["file"]),
                         ("memory/post/region_7f0000200000.bin", r["post_file"])):
            os.rename(os.path.join(snap, old), os.path.join(snap, new))
        dpath = os.path.join(snap, "dispatch.json")
        with open(dpath) as f:
            disp = json.load(f)
        for entry in disp["files"]:
            entry["path"] = entry["path"].replace("7f0000200000", "7f0000000800")
        with open(dpath, "w") as f:
            json.dump(disp, f, indent=1)
    regions_edit(snap, edit)


def not_hex(snap):
    def edit(snap, doc):
        doc["regions"][0]["base"] = "7f0000000000"
    regions_edit(snap, edit)


CASES = {"truncated": truncated, "flipped": flipped, "missing_region": missing_region,
         "overlapping": overlapping, "not_hex": not_hex}


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    good, out = argv[1], argv[2]
    os.makedirs(out, exist_ok=True)
    for name, damage in CASES.items():
        dst = os.path.join(out, name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(good, dst)
        damage(dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
