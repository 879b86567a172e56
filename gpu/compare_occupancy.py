#!/usr/bin/python3
"""Compare the CUDA runtime's answers (runtime.jsonl from occupancy_check.cu)
with `rocm-perf inspect --json` (inspect-<block>.json) in DIR.

usage: compare_occupancy.py DIR
Per kernel and block size: blocks per SM, registers, static shared memory,
local (stack) bytes and max threads per block; per device: the sm_90 facts
of rocm-perf's arch table.  Exit 0 when all agree, 1 otherwise.
"""
import glob
import json
import os
import sys

# rocm-perf's sm_90 row (src/arch/arch_table.c) as the device must report it.
SM90 = {"regs_per_sm": 65536, "regs_per_block": 65536, "max_threads_per_sm": 2048,
        "max_blocks_per_sm": 32, "smem_per_sm": 233472, "smem_per_block": 49152,
        "smem_per_block_optin": 232448, "reserved_smem_per_block": 1024, "warp_size": 32}


def main(argv):
    d = argv[1]
    device, runtime = None, []
    with open(os.path.join(d, "runtime.jsonl"), encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if "device" in rec:
                device = rec
            else:
                runtime.append(rec)
    inspect = {}
    for path in glob.glob(os.path.join(d, "inspect-*.json")):
        block = int(os.path.basename(path)[8:-5])
        with open(path, encoding="utf-8") as f:
            for k in json.load(f)["kernels"]:
                inspect[(k["name"], block)] = k

    failures = 0
    print(f"device: {device['device']} cc {device['cc']} ({device['sms']} SMs)")
    for key, want in SM90.items():
        ok = device[key] == want
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} device {key}: runtime {device[key]} table {want}")
    for r in runtime:
        k = inspect.get((r["kernel"], r["block"]))
        if k is None:
            print(f"FAIL {r['kernel']} block {r['block']}: not in inspect output")
            failures += 1
            continue
        got = {"blocks_per_sm": k["occupancy"]["blocks_per_cu"] if k["occupancy"] else None,
               "num_regs": k["registers"]["vgpr"], "shared_size_bytes": k["lds_bytes"],
               "local_size_bytes": k["scratch_bytes"],
               "max_threads_per_block":
                   k["occupancy"]["max_block_size"] if k["occupancy"] else None}
        bad = [f"{f}: runtime {r[f]} inspect {v}" for f, v in got.items() if r[f] != v]
        failures += bool(bad)
        print(f"{'FAIL' if bad else 'ok  '} {r['kernel']} block {r['block']}: " +
              ("; ".join(bad) if bad else f"{r['blocks_per_sm']} blocks/SM, {r['num_regs']} regs, "
               f"{r['shared_size_bytes']} B shared, limiter {k['occupancy']['limiter']}"))
    print(f"{len(runtime)} kernel/block pairs, {failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
