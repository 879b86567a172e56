#!/usr/bin/env python3
"""Compare rocm-perf's roofline.json with the analytic counts and with ncu.

usage: compare.py ANALYZE_DIR NCU_DIR OUT_JSON

ANALYZE_DIR/<prog>/roofline.json comes from `rocm-perf analyze --out` on the
CUPTI recorder's database (ROCM_PERF_CUPTI_COUNTERS=roofline); NCU_DIR/<prog>.csv
from `ncu --csv --print-units base --metrics ...` on the same program.
Per launch: FP32 FLOPs must equal the analytic count exactly, and all
FLOPs must equal it plus what instructions that are not arithmetic add (see
PROGRAMS); DRAM read and write bytes must be within 5 % of ncu's, except the
DRAM writes of a kernel whose output fits in the L2 (see L2_RESIDENT), which
are printed as INFO.  Prints one line per check and exits 1 when any check
fails or the counters are absent.
"""
import csv
import json
import os
import sys

# program: (kernel name prefix, analytic FP32 FLOPs per launch, FLOPs the
# counters see from instructions that do no arithmetic).  gemm_tiled zeroes
# its accumulator with `HFMA2.MMA R11, -RZ, RZ, 0, 0` (cuobjdump -sass, sm_90,
# CUDA 13.0): one per thread, counted by the hfma counter as an FP16 FMA
# (2 FLOPs), by ncu too.
PROGRAMS = {
    "rl_saxpy": ("rl_saxpy", 2 * 2 ** 24, 0),                   # one FFMA per element
    "rl_copy": ("rl_copy", 0, 0),
    "gemm_tiled": ("gemm_tiled", 2 * 2048 ** 3, 2 * 2048 ** 2),  # n^3 FFMA; n^2 threads
    "gemm_tiled_4096": ("gemm_tiled", 2 * 4096 ** 3, 2 * 4096 ** 2),
}
# Kernels whose output fits in the L2 (60 MiB on the H200): what reaches DRAM
# during the kernel depends on the dirty lines the profiler's own replay
# (saving and restoring memory between passes) leaves in the L2, not on the
# kernel (docs/validation/roofline-gpu.md), so their DRAM writes are not a
# measure of the counters.  gemm_tiled_4096 is the GEMM check.
L2_RESIDENT = {"gemm_tiled"}
FLOP_METRICS = {"hadd": 1, "hmul": 1, "hfma": 2, "fadd": 1, "fmul": 1, "ffma": 2,
                "dadd": 1, "dmul": 1, "dfma": 2}
TOLERANCE = 0.05


def ncu_per_launch(path, prefix):
    """Mean per launch of each metric over the launches of kernels named prefix*."""
    sums, ids = {}, set()
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]  # skip ncu's ==PROF== lines
    for row in csv.DictReader(lines):
        if not row.get("Kernel Name", "").startswith(prefix):
            continue
        ids.add(row["ID"])
        value = float(row["Metric Value"].replace(",", "") or 0)
        sums[row["Metric Name"]] = sums.get(row["Metric Name"], 0.0) + value
    if not ids:
        return None, 0
    return {k: v / len(ids) for k, v in sums.items()}, len(ids)


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    analyze_dir, ncu_dir, out_json = argv[1:]
    results, ok = {}, True

    def verdict(prog, what, good, detail):
        nonlocal ok
        ok = ok and good
        results.setdefault(prog, {})[what] = {"pass": good, "detail": detail}
        print(f"{prog}: {what}: {'PASS' if good else 'FAIL'} ({detail})")

    for prog, (prefix, analytic, moves) in PROGRAMS.items():
        path = os.path.join(analyze_dir, prog, "roofline.json")
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            verdict(prog, "roofline.json", False, f"unreadable: {e}")
            continue
        kernels = [k for k in doc["kernels"] if k["kernel"].startswith(prefix)]
        if len(kernels) != 1:
            verdict(prog, "kernel", False, f"{len(kernels)} kernels named {prefix}* in {path}")
            continue
        k = kernels[0]
        n = k["dispatches_with_counters"]
        if n == 0 or k["flops"] is None:
            verdict(prog, "counters", False,
                    f"COUNTERS ABSENT: {k['dispatches']} dispatches, none with the roofline "
                    f"counters; reason: {k['reason']}")
            continue
        flops = k["flops"] / n
        verdict(prog, "flops", flops == analytic + moves,
                f"{flops:.0f} per launch vs analytic {analytic} + {moves} from register "
                f"moves, {n} of {k['dispatches']} dispatches with counters")
        if k["roofline"] is None:
            verdict(prog, "roofline", False, f"null: {k['reason']}")
        else:
            fp32 = k["roofline"]["flops_by_precision"]["valu"]["fp32"] / n
            verdict(prog, "flops_fp32", fp32 == analytic,
                    f"{fp32:.0f} FP32 FLOPs per launch vs analytic {analytic}")
        ncu, launches = ncu_per_launch(os.path.join(ncu_dir, prog + ".csv"), prefix)
        if ncu is None:
            verdict(prog, "ncu", False, "no ncu rows for the kernel")
            continue
        ncu_flops = sum(ncu.get(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum", 0) * w
                        for op, w in FLOP_METRICS.items())
        verdict(prog, "ncu_flops_vs_analytic", ncu_flops == analytic + moves,
                f"ncu {ncu_flops:.0f} per launch over {launches} launches")
        if k["roofline"] is None:
            continue
        for side in ("read", "write"):
            ours = k["roofline"][f"hbm_{side}_bytes"] / n
            theirs = ncu.get(f"dram__bytes_{side}.sum")
            if not theirs:
                verdict(prog, f"dram_{side}", False, "ncu has no value")
                continue
            rel = (ours - theirs) / theirs
            detail = f"{ours:.0f} B vs ncu {theirs:.0f} B per launch ({100 * rel:+.2f} %)"
            if side == "write" and prog in L2_RESIDENT:
                results[prog]["dram_write_info"] = detail
                print(f"{prog}: dram_write: INFO, output inside the L2 ({detail})")
                continue
            verdict(prog, f"dram_{side}", abs(rel) <= TOLERANCE, detail)
        results[prog]["gbps"] = k["gbps"]
        results[prog]["gflops"] = k["gflops"]
        results[prog]["bound"] = k["bound"]
        results[prog]["roof_fraction"] = k["roof_fraction"]
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump({"schema_version": "1.0", "tolerance": TOLERANCE, "pass": ok,
                   "programs": results}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
