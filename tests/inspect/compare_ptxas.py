#!/usr/bin/python3
"""Compile CUDA kernels with nvcc and check `rocm-perf inspect` against the
compiler's own resource report (ptxas -v), and against
`cuobjdump --dump-resource-usage` when a cuobjdump is given.

usage: compare_ptxas.py --rocm-perf BIN --nvcc NVCC --arch sm_80[,sm_90] --container KIND
                        --workdir DIR --schema SCHEMA --validate VALIDATE_JSON
                        [--cuobjdump CUOBJDUMP] SOURCE.cu...

KIND: "cubin" (nvcc -cubin, one arch), "fatbin" (nvcc -fatbin) or "executable"
(a program whose .nv_fatbin holds every arch).  Per kernel and arch inspect
must report ptxas's registers, static shared memory, stack frame and barrier
count, and no kernel may be missing on either side.  Exit 0 when all agree.
"""
import argparse
import json
import os
import re
import subprocess
import sys

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\d+\w?)'")
PROPS = re.compile(r"Function properties for (\S+)")
FRAME = re.compile(r"(\d+) bytes stack frame")
USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")


def parse_ptxas(text):
    """{(kernel, arch): {registers, barriers, smem, stack}} from ptxas -v output."""
    out, entry, props = {}, None, None
    for line in text.splitlines():
        m = ENTRY.search(line)
        if m:
            entry = (m.group(1), m.group(2))
            out[entry] = {"stack": 0}
            props = None
            continue
        m = PROPS.search(line)
        if m:
            props = m.group(1)
            continue
        m = FRAME.search(line)
        if m and entry and props == entry[0]:
            out[entry]["stack"] = int(m.group(1))
            continue
        m = USED.search(line)
        if m and entry:
            out[entry]["registers"] = int(m.group(1))
            out[entry]["barriers"] = int(m.group(2) or 0)
            out[entry]["smem"] = int(m.group(3) or 0)
    return out


def parse_cuobjdump(text):
    """{(kernel, arch): {REG, SHARED, STACK, LOCAL}} from cuobjdump --dump-resource-usage."""
    out, arch, func = {}, None, None
    for line in text.splitlines():
        m = re.match(r"\s*arch = (sm_\d+\w?)", line)
        if m:
            arch = m.group(1)
            continue
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            func = m.group(1)
            continue
        if func and "REG:" in line:
            vals = dict(re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line))
            out[(func, arch)] = {k: int(v) for k, v in vals.items()}
            func = None
    return out


def compile_kernels(args, archs):
    out_dir = os.path.join(args.workdir, "-".join(archs) + "-" + args.container)
    os.makedirs(out_dir, exist_ok=True)
    ptxas, outputs = {}, []
    gencode = []
    for a in archs:
        gencode += ["-gencode", f"arch=compute_{a[3:]},code={a}"]
    main_stub = os.path.join(out_dir, "main_stub.cu")
    with open(main_stub, "w", encoding="utf-8") as f:
        f.write("int main(void) { return 0; }\n")
    for src in args.sources:
        stem = os.path.splitext(os.path.basename(src))[0]
        cmd = [args.nvcc, "-Xptxas", "-v"] + gencode
        if args.container == "cubin":
            out = os.path.join(out_dir, stem + ".cubin")
            cmd += ["-cubin", src, "-o", out]
        elif args.container == "fatbin":
            out = os.path.join(out_dir, stem + ".fatbin")
            cmd += ["-fatbin", src, "-o", out]
        else:
            out = os.path.join(out_dir, stem)
            cmd += [src, main_stub, "-o", out]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.stderr.write(res.stdout + res.stderr)
            raise SystemExit(f"compare_ptxas: compile failed: {' '.join(cmd)}")
        found = parse_ptxas(res.stdout + res.stderr)
        if not found:
            raise SystemExit(f"compare_ptxas: no ptxas report for {src}")
        ptxas.update(found)
        outputs.append(out)
    return ptxas, outputs


def run_inspect(args, archs, outputs):
    json_path = os.path.join(args.workdir, f"inspect-{'-'.join(archs)}-{args.container}.json")
    cmd = [args.rocm_perf, "inspect", "--json", "--arch", ",".join(archs), "-o", json_path]
    res = subprocess.run(cmd + outputs, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        raise SystemExit(f"compare_ptxas: inspect failed ({res.returncode})")
    val = subprocess.run([sys.executable, args.validate, args.schema, json_path],
                         capture_output=True, text=True)
    if val.returncode != 0:
        sys.stderr.write(val.stdout + val.stderr)
        raise SystemExit("compare_ptxas: inspect JSON does not follow its schema")
    with open(json_path, encoding="utf-8") as f:
        return json.load(f)["kernels"]


def main():
    p = argparse.ArgumentParser()
    for opt in ("--rocm-perf", "--nvcc", "--arch", "--workdir", "--schema", "--validate"):
        p.add_argument(opt, required=True)
    p.add_argument("--container", choices=["cubin", "fatbin", "executable"], required=True)
    p.add_argument("--cuobjdump")
    p.add_argument("sources", nargs="+")
    args = p.parse_args()
    archs = args.arch.split(",")

    ptxas, outputs = compile_kernels(args, archs)
    seen = {}
    for k in run_inspect(args, archs, outputs):
        key = (k["name"], k["arch"])
        if key in seen:
            print(f"FAIL {key}: reported twice")
            return 1
        seen[key] = k

    refs = {"ptxas -v": {key: {"registers": r["registers"], "smem": r["smem"],
                               "stack": r["stack"], "barriers": r["barriers"]}
                         for key, r in ptxas.items()}}
    if args.cuobjdump:
        text = ""
        for out in outputs:
            res = subprocess.run([args.cuobjdump, "--dump-resource-usage", out],
                                 capture_output=True, text=True)
            if res.returncode != 0:
                sys.stderr.write(res.stderr)
                raise SystemExit(f"compare_ptxas: cuobjdump failed on {out}")
            text += res.stdout
        refs["cuobjdump"] = {key: {"registers": r.get("REG"), "smem": r.get("SHARED")}
                             for key, r in parse_cuobjdump(text).items()}

    failures = 0
    for ref_name, ref in refs.items():
        for key in sorted(set(ref) | set(seen)):
            if key not in seen:
                print(f"FAIL {key}: {ref_name} reports it, inspect does not")
                failures += 1
                continue
            if key not in ref:
                print(f"FAIL {key}: inspect reports it, {ref_name} does not")
                failures += 1
                continue
            k = seen[key]
            got = {"registers": k["registers"]["vgpr"], "smem": k["lds_bytes"],
                   "stack": k["scratch_bytes"], "barriers": k["barriers"]}
            bad = [f"{f}: {ref_name} {v} inspect {got[f]}" for f, v in ref[key].items()
                   if v != got[f]]
            if bad:
                failures += 1
                print(f"FAIL {key[0]} {key[1]}: " + "; ".join(bad))
            else:
                print(f"ok   {key[0]} {key[1]} vs {ref_name}: " +
                      ", ".join(f"{f}={v}" for f, v in ref[key].items()))
    print(f"{args.arch} ({args.container}): {len(ptxas)} kernels, references: "
          f"{', '.join(refs)}, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
