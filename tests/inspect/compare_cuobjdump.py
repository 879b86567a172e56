#!/usr/bin/env python3
"""Compare `rocm-perf inspect --json` with `cuobjdump --dump-resource-usage`
output recorded on the GPU machine for the same committed binaries
(tests/inspect/recorded/README.md).

usage: compare_cuobjdump.py ROCM_PERF RECORDED_DIR

Registers and stack must be equal. Shared memory must be equal too, except
that sm_90 cubins of CUDA 13 carry the driver's 1 KiB per-block reserve in
their shared section, which cuobjdump prints and inspect leaves out (inspect
reports the kernel's own static shared memory, as ptxas -v and
cudaFuncGetAttributes do). The reserve is there whenever the kernel has a
shared section, even one of dynamic shared memory only, so on sm_90 the
expected lds_bytes is SHARED - 1024 when SHARED > 0.
"""
import json
import os
import re
import subprocess
import sys

RESERVE_IN_CUBIN = {"sm_90": 1024}


def parse_recorded(text, default_arch_by_ext):
    """{(file, kernel): {"arch":..., REG, SHARED, STACK, ...}} from the recorded dump."""
    out = {}
    for block in text.split("### ")[1:]:
        name, _, body = block.partition("\n")
        name = name.strip()
        arch = default_arch_by_ext[os.path.splitext(name)[1]]
        func = None
        for line in body.splitlines():
            m = re.match(r"\s*arch = (sm_\d+\w?)", line)
            if m:
                arch = m.group(1)
            m = re.match(r"\s*Function (\S+):", line)
            if m:
                func = m.group(1)
                continue
            if func and "REG:" in line:
                vals = {k: int(v) for k, v in re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line)}
                vals["arch"] = arch
                out[(name, func)] = vals
                func = None
    return out


def main():
    rocm_perf, recorded = sys.argv[1], sys.argv[2]
    with open(os.path.join(recorded, "cuobjdump.txt")) as f:
        ref = parse_recorded(f.read(), {".cubin": "sm_80", ".fatbin": "sm_90"})
    if not ref:
        print("FAIL: no kernels in the recorded cuobjdump output")
        return 1
    failures = 0
    files = sorted({name for name, _ in ref})
    for name in files:
        res = subprocess.run([rocm_perf, "inspect", "--json", os.path.join(recorded, name)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            print(f"FAIL {name}: inspect exited {res.returncode}: {res.stderr.strip()}")
            failures += 1
            continue
        got = {k["name"]: k for k in json.loads(res.stdout)["kernels"]}
        for (fname, func), r in sorted(ref.items()):
            if fname != name:
                continue
            k = got.get(func)
            if k is None:
                print(f"FAIL {name} {func}: in cuobjdump, not in inspect")
                failures += 1
                continue
            lds = k["lds_bytes"]
            reserve = RESERVE_IN_CUBIN.get(r["arch"], 0) if r["SHARED"] > 0 else 0
            checks = [("REG", r["REG"], k["registers"]["vgpr"]),
                      ("STACK", r["STACK"], k["scratch_bytes"]),
                      ("SHARED less the reserve", r["SHARED"] - reserve, lds)]
            bad = [f"{what}: cuobjdump {a} inspect {b}" for what, a, b in checks if a != b]
            if bad:
                failures += 1
                print(f"FAIL {name} {func} ({r['arch']}): " + "; ".join(bad))
            else:
                print(f"ok   {name} {func} ({r['arch']}): REG {r['REG']} STACK {r['STACK']} "
                      f"SHARED {r['SHARED']} (inspect lds {lds})")
    print(f"{len(ref)} kernels in {len(files)} files, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
