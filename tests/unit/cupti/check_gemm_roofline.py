#!/usr/bin/env python3
"""The roofline of the counters recorded on an H200 (gemm_counters.db).

usage: check_gemm_roofline.py ROCM_PERF DB OUT_DIR SCHEMA VALIDATE_JSON

Runs `rocm-perf analyze DB --out OUT_DIR`, validates roofline.json and checks
the tiled GEMM (n = 2048, 5 launches, gpu/cupti/gemm_tiled.cu) against its
analytic counts: FP32 FLOPs exactly 2 n^3 per launch; all FLOPs 2 n^3 + 2 n^2,
the n^2 threads each zeroing the accumulator with one HFMA2.MMA that the
hfma counter counts (cuobjdump -sass, docs/validation/roofline-gpu.md); DRAM
reads within 1 % of A and B read once (8 n^2 bytes).
"""
import json
import os
import subprocess
import sys

N, LAUNCHES = 2048, 5


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    rocm_perf, db, out, schema, validate = argv[1:]
    run = subprocess.run([rocm_perf, "analyze", db, "--out", out, "-q"], capture_output=True,
                         text=True, check=False)
    if run.returncode != 0:
        fail(f"rocm-perf analyze exited {run.returncode}: {run.stderr.strip()}")
    path = os.path.join(out, "roofline.json")
    run = subprocess.run([sys.executable, validate, schema, path], capture_output=True, text=True,
                         check=False)
    if run.returncode != 0:
        fail(f"{path} does not validate: {run.stdout.strip()} {run.stderr.strip()}")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    kernels = [k for k in doc["kernels"] if k["kernel"].startswith("gemm_tiled(")]
    if len(kernels) != 1:
        fail(f"{len(kernels)} gemm_tiled kernels in {path}")
    k = kernels[0]
    if k["dispatches"] != LAUNCHES or k["dispatches_with_counters"] != LAUNCHES:
        fail(f"{k['dispatches_with_counters']} of {k['dispatches']} dispatches with counters, "
             f"expected {LAUNCHES} of {LAUNCHES}")
    if k["roofline"] is None:
        fail(f"roofline is null: {k.get('reason')}")
    valu = k["roofline"]["flops_by_precision"]["valu"]
    checks = [
        ("FP32 FLOPs", valu["fp32"], LAUNCHES * 2 * N ** 3),
        ("FP16 FLOPs (HFMA2.MMA register zeroing)", valu["fp16"], LAUNCHES * 2 * N ** 2),
        ("FP64 FLOPs", valu["fp64"], 0),
        ("all FLOPs", k["flops"], LAUNCHES * (2 * N ** 3 + 2 * N ** 2)),
    ]
    for what, got, want in checks:
        if got != want:
            fail(f"{what}: {got} != {want}")
    read = k["roofline"]["hbm_read_bytes"] / LAUNCHES
    if abs(read - 8 * N ** 2) > 0.01 * 8 * N ** 2:
        fail(f"DRAM read {read:.0f} B per launch, analytic {8 * N ** 2}")
    if k["bound"] != "compute" or not 0 < k["roof_fraction"] < 1:
        fail(f"bound {k['bound']}, roof fraction {k['roof_fraction']}")
    print(f"ok: {k['flops']} FLOPs over {LAUNCHES} launches, {read:.0f} B read per launch, "
          f"{k['gflops']:.0f} GFLOP/s, {k['bound']} bound at {100 * k['roof_fraction']:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
