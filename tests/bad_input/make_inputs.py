#!/usr/bin/python3
"""The bad inputs of the bad-input campaign's regression table (cases.tsv).

usage: make_inputs.py WORK GOOD_SNAPSHOT BASELINE

WORK is emptied and filled with: snap/<case> (damaged copies of the good
snapshot, one fault each), space_<case>.json (autotune search spaces),
repo/ (a git repository with a kernel source, a folder and a FIFO where a
source is expected), build/rocm-perf/<test>/target.json (target
descriptions of `optimize --test`), baseline_dup.json, and a few plain
files.  Faults are made on the text, so that what a JSON writer would
never write (a key twice, an escaped NUL) is what the file holds.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def replace_once(path, old, new):
    with open(path) as f:
        text = f.read()
    if text.count(old) != 1:
        sys.exit(f"make_inputs.py: {path}: '{old}' is not there exactly once")
    write(path, text.replace(old, new))


def refresh_listing(snap, name):
    """Bring the size and SHA-256 of `name` in dispatch.json up to date (by text)."""
    path = os.path.join(snap, name)
    with open(path, "rb") as f:
        data = f.read()
    dpath = os.path.join(snap, "dispatch.json")
    with open(dpath) as f:
        disp = json.load(f)
    for entry in disp["files"]:
        if entry["path"] == name:
            replace_once(dpath, entry["sha256"], hashlib.sha256(data).hexdigest())
            replace_once(dpath, '"size":\t%d' % entry["size"], '"size":\t%d' % len(data))


def snapshots(work, good):
    def copy(case):
        dst = os.path.join(work, "snap", case)
        shutil.copytree(good, dst)
        return dst

    for case, old, new in (
            ("dup_arch", '"arch":\t"sm_90",', '"arch":\t"sm_90", "arch": "gfx942",'),
            ("nul_symbol", '"symbol":\t"scale"', '"symbol":\t"scale\\u0000evil"'),
            ("esc_symbol", '"symbol":\t"scale"', '"symbol":\t"scale\\u001b[2J"'),
            ("traversal", '"code_object":\t"kernel.cubin"',
             '"code_object":\t"../../../../../etc/passwd"')):
        replace_once(os.path.join(copy(case), "dispatch.json"), old, new)
    s = copy("dup_size")
    replace_once(os.path.join(s, "memory_regions.json"), '"size":\t100,',
                 '"size":\t100, "size": 1000000,')
    refresh_listing(s, "memory_regions.json")
    for name in ("dispatch", "memory_regions"):
        s = copy("dir_" + name)
        os.remove(os.path.join(s, name + ".json"))
        os.mkdir(os.path.join(s, name + ".json"))
    s = copy("fifo_region")
    region = os.path.join(s, "memory", "region_7f0000200000.bin")
    os.remove(region)
    os.mkfifo(region)


def space(params, constraints=None, extra=""):
    doc = '{"schema_version": "1.0", ' + extra + '"parameters": [' + ", ".join(params) + "]"
    if constraints is not None:
        doc += ', "constraints": [' + ", ".join(json.dumps(c) for c in constraints) + "]"
    return doc + "}\n"


def spaces(work):
    bm = '{"name": "BM", "values": [16, 32, 64]}'
    u = '{"name": "U", "values": [1, 2]}'
    write(os.path.join(work, "space_ok.json"), space([bm, u]))
    write(os.path.join(work, "space_dup_top.json"),
          space([bm, u], extra='"name": "a", "name": "b", '))
    write(os.path.join(work, "space_dup_param.json"),
          space(['{"name": "BM", "values": [16], "values": [16, 32]}', u]))
    write(os.path.join(work, "space_nul.json"), space([bm, u], extra='"name": "x\\u0000y", '))
    write(os.path.join(work, "space_1e400.json"),
          space(['{"name": "BM", "values": [16, 1e400]}', u]))
    write(os.path.join(work, "space_range_1e400.json"),
          space(['{"name": "BM", "range": {"start": 1, "stop": 1e400}}', u]))
    write(os.path.join(work, "space_nested.json"),
          space([bm, u], ["(" * 2000 + "BM" + ")" * 2000]))
    # 10^6 combinations (6 parameters of 10 values) and 50 constraints of about 4 KiB.
    six = ['{"name": "P%d", "values": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}' % i for i in range(6)]
    big = " && ".join(["(P%d + 1) * 2 > P%d" % (i % 6, (i + 1) % 6) for i in range(190)])
    write(os.path.join(work, "space_costly.json"), space(six, [big] * 50))
    # The same combinations and one short constraint: within the bound.
    write(os.path.join(work, "space_wide.json"), space(six, ["P0 <= P1"]))


def repo(work):
    r = os.path.join(work, "repo")
    os.makedirs(os.path.join(r, "src"))
    write(os.path.join(r, "src", "kern.hip"),
          '__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }\n')
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run(git + ["init", "-q"], cwd=r, check=True)
    subprocess.run(git + ["add", "."], cwd=r, check=True)
    subprocess.run(git + ["commit", "-q", "-m", "kernel"], cwd=r, check=True)
    os.mkfifo(os.path.join(r, "src", "fifo.hip"))
    write(os.path.join(work, "not_source.bin"), "\x7fELF\0\0\0binary\0")


def targets(work, source):
    good = ('{"schema_version": "1.0", "name": "t", "sources": ["%s"], '
            '"build_command": ["hipcc", "{src}", "-o", "{out}"], "test_command": ["{out}"]}'
            % source)
    write(os.path.join(work, "build", "rocm-perf", "dup", "target.json"),
          good.replace('"name": "t", ', '"name": "t", "name": "u", '))
    write(os.path.join(work, "build", "rocm-perf", "nul", "target.json"),
          good.replace('"name": "t"', '"name": "t\\u0000x"'))
    write(os.path.join(work, "build", "rocm-perf", "nosrc", "target.json"),
          good.replace('"{src}", ', ''))
    write(os.path.join(work, "build", "rocm-perf", "unknownword", "target.json"),
          good.replace('"test_command": ["{out}"]', '"test_command": ["{out}", "{size}"]'))


def baseline(work, path):
    with open(path) as f:
        text = f.read()
    key, value = next(iter(json.loads(text).items()))
    start = text.index("{") + 1
    write(os.path.join(work, "baseline_dup.json"),
          text[:start] + json.dumps(key) + ": " + json.dumps(value) + ", " + text[start:])


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    work, good, base = argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    snapshots(work, good)
    spaces(work)
    repo(work)
    targets(work, os.path.join(work, "repo", "src", "kern.hip"))
    baseline(work, base)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
