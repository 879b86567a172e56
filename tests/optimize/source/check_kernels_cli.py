#!/usr/bin/python3
"""rocm-perf kernels through the real binary: JSON against its schema and the
fixtures' known kernels and guardrail verdicts, --wave, and the text form.

usage: check_kernels_cli.py ROCM_PERF SOURCE_DIR SCHEMA VALIDATE WORKDIR
"""
import json
import os
import subprocess
import sys


def run(args, want_rc=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if p.returncode != want_rc:
        sys.exit(f"FAIL: {' '.join(args)}: exit {p.returncode}, expected {want_rc}\n{p.stderr}")
    return p.stdout


def expect(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")


def main(argv):
    rocm_perf, src, schema, validate, work = argv[1:6]
    os.makedirs(work, exist_ok=True)
    gemm = os.path.join(src, "ctest", "kernels", "gemm.hip")
    harness = os.path.join(src, "templates")

    out = os.path.join(work, "gemm.json")
    run([rocm_perf, "kernels", gemm, "-I", harness, "--json", "-o", out])
    run([sys.executable, validate, schema, out])
    doc = json.load(open(out, encoding="utf-8"))
    expect(doc["mode"] == "hip" and doc["arch"] == "gfx90a" and doc["wave_size"] == 64,
           f"parse mode {doc['mode']} {doc['arch']} wave {doc['wave_size']}")
    expect(doc["diagnostics"]["errors"] == 0, f"errors: {doc['diagnostics']}")
    (k,) = doc["kernels"]
    expect(k["mangled"] == "_Z10gemm_tiledPKfS0_Pfi", f"symbol {k['mangled']}")
    expect(k["launch_bounds"] == "TILE *TILE", f"launch bounds {k['launch_bounds']}")
    outer, inner = k["loops"]
    expect(outer["barrier"] and outer["unroll_factor"] is None
           and outer["blocker"].startswith("calls __syncthreads"), f"outer loop {outer}")
    expect(inner["depth"] == 1 and inner["trip_count"] == 16 and inner["unroll_factor"] == 4
           and inner["verdict"] == "unroll", f"inner loop {inner}")
    text = open(gemm, encoding="utf-8").read()
    expect(text[k["definition"]["begin"]:].startswith("__global__ void __launch_bounds__"),
           "definition offset")

    # wave32 (RDNA, NVIDIA): twice the factor for the same work per wave.
    doc = json.loads(run([rocm_perf, "kernels", gemm, "-I", harness, "--json", "--wave", "32"]))
    expect(doc["kernels"][0]["loops"][1]["unroll_factor"] == 8, "wave32 factor")

    # A CUDA source, and the prelude.
    cu = os.path.join(src, "tests", "optimize", "source", "kernels.cu")
    for extra, mode in (([], "cuda"), (["--no-vendor-headers"], "cuda-prelude")):
        out = os.path.join(work, f"cu-{mode}.json")
        run([rocm_perf, "kernels", cu, "--json", "-o", out] + extra)
        run([sys.executable, validate, schema, out])
        doc = json.load(open(out, encoding="utf-8"))
        names = [k["qualified_name"] for k in doc["kernels"]]
        expect(names == ["row_sum", "gather", "ops::histogram", "ops::staged"], f"{mode}: {names}")
        expect(doc["mode"] == mode or (mode == "cuda" and doc["mode"] == "cuda-prelude"),
               f"mode {doc['mode']}")

    text = run([rocm_perf, "kernels", gemm, "-I", harness])
    expect("kernel gemm_tiled  lines 8-29  symbol _Z10gemm_tiledPKfS0_Pfi" in text, text)
    expect("-> not unrolled: calls __syncthreads (line 22)" in text, text)
    expect("trip 16  -> unroll 4" in text, text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
