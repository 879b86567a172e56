#!/usr/bin/python3
"""Compile HIP kernels for one gfx target and check `rocm-perf inspect`
against LLVM's own resource report (-Rpass-analysis=kernel-resource-usage).

usage: compare_llvm.py --rocm-perf BIN --hipcc HIPCC --arch GFX --container KIND
                       --workdir DIR --schema SCHEMA --validate VALIDATE_JSON SOURCE.hip...

KIND picks what inspect reads: "object" (hipcc -c: host ELF with .hip_fatbin),
"bundle" (hipcc --genco: a standalone offload bundle) or "shared" (a HIP shared
library).  For every kernel LLVM reports, inspect must report the same SGPRs,
VGPRs, AGPRs, scratch, LDS, spills and occupancy (waves per SIMD), and no
kernel may be missing on either side.  Exit 0 when all agree, 1 otherwise.

LLVM prints architectural VGPRs and AGPRs separately; the code object records
the count occupancy uses (gfx90a/gfx94x: alignTo(VGPRs, 4) + AGPRs when AGPRs
are used), so with AGPRs inspect knows the architectural count only rounded up
to 4, and that is what is compared.
"""
import argparse
import json
import os
import re
import subprocess
import sys

REMARK = re.compile(r"remark:\s+(.*?)\s+\[-Rpass-analysis=kernel-resource-usage\]")
FIELDS = {
    "SGPRs": "sgpr",
    "VGPRs": "vgpr",
    "AGPRs": "agpr",
    "ScratchSize [bytes/lane]": "scratch",
    "Occupancy [waves/SIMD]": "occupancy",
    "SGPRs Spill": "sgpr_spill",
    "VGPRs Spill": "vgpr_spill",
    "LDS Size [bytes/block]": "lds",
}
UNIFIED = ("gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")


def parse_remarks(text):
    kernels, current = {}, None
    for line in text.splitlines():
        m = REMARK.search(line)
        if not m:
            continue
        body = m.group(1)
        if body.startswith("Function Name:"):
            current = body.split(":", 1)[1].strip()
            kernels[current] = {}
            continue
        key, _, value = body.rpartition(":")
        key = key.strip()
        if current is None or key not in FIELDS:
            raise SystemExit(f"compare_llvm: unexpected remark line: {line}")
        kernels[current][FIELDS[key]] = int(value)
    return kernels


def compile_kernels(args):
    out_dir = os.path.join(args.workdir, args.arch)
    os.makedirs(out_dir, exist_ok=True)
    remarks, outputs = {}, []
    for src in args.sources:
        stem = os.path.splitext(os.path.basename(src))[0]
        cmd = [args.hipcc, f"--offload-arch={args.arch}", "-O3",
               "-Rpass-analysis=kernel-resource-usage"]
        if args.container == "object":
            out = os.path.join(out_dir, stem + ".o")
            cmd += ["-c", src, "-o", out]
        elif args.container == "bundle":
            out = os.path.join(out_dir, stem + ".hipfb")
            cmd += ["--genco", src, "-o", out]
        else:
            out = os.path.join(out_dir, "lib" + stem + ".so")
            cmd += ["-fPIC", "-shared", src, "-o", out]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.stderr.write(res.stderr)
            raise SystemExit(f"compare_llvm: compile failed: {' '.join(cmd)}")
        found = parse_remarks(res.stderr)
        if not found:
            raise SystemExit(f"compare_llvm: no resource remarks from {src}")
        remarks.update(found)
        outputs.append(out)
    return remarks, outputs


def run_inspect(args, outputs):
    json_path = os.path.join(args.workdir, f"inspect-{args.arch}-{args.container}.json")
    cmd = [args.rocm_perf, "inspect", "--json", "--arch", args.arch, "-o", json_path] + outputs
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        raise SystemExit(f"compare_llvm: inspect failed ({res.returncode})")
    val = subprocess.run([sys.executable, args.validate, args.schema, json_path],
                         capture_output=True, text=True)
    if val.returncode != 0:
        sys.stderr.write(val.stdout + val.stderr)
        raise SystemExit("compare_llvm: inspect JSON does not follow its schema")
    with open(json_path, encoding="utf-8") as f:
        return json.load(f)["kernels"]


def align4(v):
    return (v + 3) // 4 * 4


def expected_values(arch, r):
    agpr = r.get("agpr", 0)
    vgpr = r["vgpr"]
    unified = arch in UNIFIED
    if agpr and unified:
        arch_vgpr, total = align4(vgpr), align4(vgpr) + agpr
    else:
        arch_vgpr, total = vgpr, max(vgpr, agpr)
    return {
        "SGPRs": r["sgpr"],
        "VGPRs (arch)": arch_vgpr,
        "VGPRs (occupancy count)": total,
        "AGPRs": agpr,
        "ScratchSize": r["scratch"],
        "LDS": r["lds"],
        "VGPR spills": r["vgpr_spill"],
        "SGPR spills": r["sgpr_spill"],
        "Occupancy waves/SIMD": r["occupancy"],
    }


def inspect_values(k):
    occ = k["occupancy"] or {}
    return {
        "SGPRs": k["registers"]["sgpr"],
        "VGPRs (arch)": k["registers"]["arch_vgpr"],
        "VGPRs (occupancy count)": k["registers"]["vgpr"],
        "AGPRs": k["registers"]["agpr"],
        "ScratchSize": k["scratch_bytes"],
        "LDS": k["lds_bytes"],
        "VGPR spills": k["spills"]["vgpr"],
        "SGPR spills": k["spills"]["sgpr"],
        "Occupancy waves/SIMD": occ.get("waves_per_simd"),
    }


def main():
    p = argparse.ArgumentParser()
    for opt in ("--rocm-perf", "--hipcc", "--arch", "--workdir", "--schema", "--validate"):
        p.add_argument(opt, required=True)
    p.add_argument("--container", choices=["object", "bundle", "shared"], required=True)
    p.add_argument("sources", nargs="+")
    args = p.parse_args()

    remarks, outputs = compile_kernels(args)
    kernels = run_inspect(args, outputs)
    by_name = {}
    for k in kernels:
        if k["name"] in by_name:
            print(f"FAIL {k['name']}: reported twice")
            return 1
        by_name[k["name"]] = k

    failures, checked = 0, 0
    for name in sorted(set(remarks) | set(by_name)):
        if name not in by_name:
            print(f"FAIL {name}: LLVM reports it, inspect does not")
            failures += 1
            continue
        if name not in remarks:
            print(f"FAIL {name}: inspect reports it, LLVM does not")
            failures += 1
            continue
        want = expected_values(args.arch, remarks[name])
        got = inspect_values(by_name[name])
        bad = [f"{f}: llvm {want[f]} inspect {got[f]}" for f in want if want[f] != got[f]]
        checked += len(want)
        if bad:
            failures += 1
            print(f"FAIL {name}: " + "; ".join(bad))
        else:
            print(f"ok   {name}: " + ", ".join(f"{f}={want[f]}" for f in want))
    print(f"{args.arch} ({args.container}): {len(remarks)} kernels, {checked} values compared, "
          f"{failures} kernels differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
