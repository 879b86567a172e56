#!/usr/bin/python3
"""Run `rocm-perf inspect` on the inputs make_inputs.py wrote.

usage: check_cli.py --rocm-perf BIN --dir DIR --schema SCHEMA --validate VALIDATE_JSON valid
       check_cli.py --rocm-perf BIN --dir DIR bad CASE

valid: every valid input gives exit 0 and JSON (valid against the schema)
       whose kernels carry exactly the expected values.
bad CASE: the hostile input CASE gives exit 2, exactly one stderr line
       "rocm-perf: ...", nothing on stdout, and with -o no output file.
"""
import argparse
import json
import os
import subprocess
import sys


def check_valid(args, expected):
    failures = 0
    for name, want in sorted(expected["valid"].items()):
        out = os.path.join(args.dir, name + ".json")
        if os.path.exists(out):
            os.unlink(out)
        res = subprocess.run([args.rocm_perf, "inspect", "--json", "-o", out,
                              os.path.join(args.dir, name)], capture_output=True, text=True)
        if res.returncode != 0:
            print(f"FAIL {name}: exit {res.returncode}: {res.stderr.strip()}")
            failures += 1
            continue
        val = subprocess.run([sys.executable, args.validate, args.schema, out],
                             capture_output=True, text=True)
        if val.returncode != 0:
            print(f"FAIL {name}: schema: {val.stdout}{val.stderr}")
            failures += 1
            continue
        with open(out, encoding="utf-8") as f:
            got = json.load(f)["kernels"]
        if len(got) != len(want):
            print(f"FAIL {name}: {len(got)} kernels, expected {len(want)}")
            failures += 1
            continue
        for k, w in zip(got, want):
            occ = k["occupancy"] or {}
            have = {
                "name": k["name"], "arch": k["arch"], "vgpr": k["registers"]["vgpr"],
                "arch_vgpr": k["registers"]["arch_vgpr"], "agpr": k["registers"]["agpr"],
                "sgpr": k["registers"]["sgpr"], "lds_bytes": k["lds_bytes"],
                "scratch_bytes": k["scratch_bytes"], "spill_vgpr": k["spills"]["vgpr"],
                "barriers": k["barriers"], "waves_per_simd": occ.get("waves_per_simd"),
                "blocks_per_cu": occ.get("blocks_per_cu"), "limiter": occ.get("limiter"),
                "rule": occ.get("rule"), "block_size": occ.get("block_size"),
                "n_args": len(k["args"]),
            }
            bad = [f"{f}: want {v} got {have[f]}" for f, v in w.items()
                   if f != "table_name" and have[f] != v]
            if bad:
                print(f"FAIL {name} {k['name']}: " + "; ".join(bad))
                failures += 1
            else:
                print(f"ok   {name} {k['name']}")
        failures += check_table(args, name, want)
    return failures


def check_table(args, name, want):
    """The table's KERNEL column: the demangled name where one is expected."""
    if not any("table_name" in w for w in want):
        return 0
    res = subprocess.run([args.rocm_perf, "inspect", os.path.join(args.dir, name)],
                         capture_output=True, text=True)
    lines = res.stdout.splitlines()
    col = lines[0].index("KERNEL") if lines else 0
    got = [r[col:] for r in lines[1:]]
    expect = [w.get("table_name", w["name"]) for w in want]
    if res.returncode != 0 or got != expect:
        print(f"FAIL {name} table: kernels {got}, expected {expect}\n{res.stdout}{res.stderr}")
        return 1
    print(f"ok   {name} table")
    return 0


def check_bad(args, case):
    path = os.path.join(args.dir, case)
    out = os.path.join(args.dir, case + ".out.json")
    if os.path.exists(out):
        os.unlink(out)
    failures = 0
    for extra in ([], ["--json", "-o", out]):
        res = subprocess.run([args.rocm_perf, "inspect"] + extra + [path], capture_output=True,
                             text=True, timeout=60)
        lines = res.stderr.splitlines()
        problems = []
        if res.returncode != 2:
            problems.append(f"exit {res.returncode}, want 2")
        if len(lines) != 1 or not lines[0].startswith("rocm-perf: "):
            problems.append(f"stderr is not one 'rocm-perf: ' line: {res.stderr!r}")
        if res.stdout:
            problems.append(f"stdout not empty: {res.stdout[:200]!r}")
        if os.path.exists(out):
            problems.append("an output file was left behind")
        if problems:
            print(f"FAIL {case} {' '.join(extra)}: " + "; ".join(problems))
            failures += 1
        else:
            print(f"ok   {case}: {lines[0]}")
    return failures


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rocm-perf", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--schema")
    p.add_argument("--validate")
    p.add_argument("mode", choices=["valid", "bad"])
    p.add_argument("case", nargs="?")
    args = p.parse_args()
    with open(os.path.join(args.dir, "expected.json"), encoding="utf-8") as f:
        expected = json.load(f)
    if args.mode == "valid":
        failures = check_valid(args, expected)
    else:
        if args.case not in expected["bad"]:
            print(f"unknown case {args.case}")
            return 1
        failures = check_bad(args, args.case)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
