#!/usr/bin/env python3
"""Golden-output test: run rocm-perf commands on the fixtures and compare what they
print and write with the outputs recorded in expected/ (byte for byte, after masking
the work folder, the source tree, dates, durations and the host name).

usage: golden.py --rocm-perf BIN --fixture BIN --src DIR [--work DIR] [--update] [CASE...]

Each line of cases.txt is 'CASE: ARGS' (shell words; {SRC}, {W} and {DB:NAME} are the
source tree, the case's work folder and the database made from a fixture description).
A case's lines run in order in one work folder; '!' before ARGS compares only the exit
code (bad usage: the words of the error are not part of the contract); '@mkdir D'
makes the folder D in the work folder.  --update
rewrites expected/ instead of comparing (review the diff before committing it)."""
import argparse
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MASKS = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?"), "<DATE>"),
    (re.compile(r'time="[0-9.]+"'), 'time="<T>"'),
    (re.compile(r'hostname="[^"]*"'), 'hostname="<HOST>"'),
    (re.compile(r'"elapsed_s":(\s*)[0-9.e-]+'), r'"elapsed_s":\1<T>'),
]


def parse_cases(path):
    cases = {}
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, args = line.partition(":")
        if not sep or not re.fullmatch(r"[a-z0-9_-]+", name):
            sys.exit(f"golden.py: {path}:{n}: expected 'CASE: ARGS'")
        cases.setdefault(name, []).append(args.strip())
    return cases


def mask(text, work, root, src):
    text = text.replace(work, "{W}").replace(root, "{ROOT}").replace(src, "{SRC}")
    for rx, repl in MASKS:
        text = rx.sub(repl, text)
    return text


def make_db(fixture, src, dbdir, name):
    out = os.path.join(dbdir, name + ".db")
    if not os.path.exists(out):
        for d in ("tests/fixtures", "tests/gate/fixtures", "tests/report/fixtures"):
            desc = os.path.join(src, d, name + ".json")
            if os.path.exists(desc):
                subprocess.run([fixture, desc, out], check=True, stdout=subprocess.DEVNULL)
                break
        else:
            sys.exit(f"golden.py: no fixture description named {name}")
    return out


def run_case(a, name, lines, dbdir):
    work = os.path.join(a.work, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, ROCM_PERF_LOG="warn", TZ="UTC", LC_ALL="C")
    env.pop("ROCM_PERF_HELPERS", None)
    report = []
    for args in lines:
        if args.startswith("@mkdir "):  # a folder the next command writes into
            os.makedirs(os.path.join(work, args.split(None, 1)[1]), exist_ok=True)
            continue
        exit_only = args.startswith("!")
        args = args.lstrip("! ")
        args = re.sub(r"\{DB:(\w+)\}", lambda m: make_db(a.fixture, a.src, dbdir, m.group(1)), args)
        words = [w.replace("{SRC}", a.src).replace("{W}", work) for w in shlex.split(args)]
        p = subprocess.run([a.rocm_perf] + words, cwd=work, env=env, capture_output=True,
                           text=True, errors="replace", timeout=300)
        report.append(f"$ rocm-perf {args}\n[exit {p.returncode}]\n")
        if not exit_only:
            report.append("--- stdout\n" + p.stdout + "--- stderr\n" + p.stderr)
    for root, dirs, files in os.walk(work):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(root, f)
            data = open(path, "rb").read()
            rel = os.path.relpath(path, work)
            if b"\0" in data:  # a database: its size says nothing stable; its presence does
                report.append(f"=== {rel} (binary)\n")
            else:
                report.append(f"=== {rel}\n" + data.decode("utf-8", "replace"))
    return mask("".join(report), work, a.work, a.src)


def main():
    ap = argparse.ArgumentParser()
    for o in ("--rocm-perf", "--fixture", "--src"):
        ap.add_argument(o, required=True)
    # Outside any git repository by default: baselines record the commit of the
    # repository holding them.
    ap.add_argument("--work", default=None)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    a.src = os.path.abspath(a.src)
    own_work = not a.work
    a.work = tempfile.mkdtemp(prefix="rpl-golden-") if own_work else os.path.abspath(a.work)
    a.rocm_perf = os.path.abspath(a.rocm_perf)
    a.fixture = os.path.abspath(a.fixture)
    cases = parse_cases(os.path.join(HERE, "cases.txt"))
    names = a.cases or list(cases)
    dbdir = os.path.join(a.work, "_db")
    os.makedirs(dbdir, exist_ok=True)
    failed = []
    for name in names:
        if name not in cases:
            sys.exit(f"golden.py: no case {name}")
        got = run_case(a, name, cases[name], dbdir)
        path = os.path.join(HERE, "expected", name + ".txt")
        if a.update:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(got)
            continue
        want = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if got != want:
            failed.append(name)
            sys.stdout.writelines(difflib.unified_diff(
                want.splitlines(True), got.splitlines(True), f"expected/{name}.txt", "got", n=2))
    print(f"golden: {len(names) - len(failed)} of {len(names)} cases identical")
    if own_work and not failed:
        shutil.rmtree(a.work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
