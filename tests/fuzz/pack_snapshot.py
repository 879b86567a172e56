#!/usr/bin/python3
"""Write snapshot directories as fuzz_snapshot inputs.

usage: pack_snapshot.py OUTDIR SNAPSHOT...

Each SNAPSHOT becomes OUTDIR/<name>: dispatch.json, then "\\n@@@ <path>\\n"
and the bytes of every other file (the format fuzz_snapshot.c reads).
"""
import os
import sys


def pack(snap):
    out = open(os.path.join(snap, "dispatch.json"), "rb").read()
    for top, _, files in sorted(os.walk(snap)):
        for f in sorted(files):
            path = os.path.relpath(os.path.join(top, f), snap)
            if path == "dispatch.json":
                continue
            out += b"\n@@@ " + path.encode() + b"\n" + open(os.path.join(top, f), "rb").read()
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for snap in argv[2:]:
        name = os.path.basename(os.path.normpath(snap))
        with open(os.path.join(argv[1], name), "wb") as f:
            f.write(pack(snap))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
