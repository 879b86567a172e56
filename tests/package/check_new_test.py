#!/usr/bin/env python3
"""rocm-perf new-test: the scaffold it writes, and what it refuses.

usage: check_new_test.py ROCM_PERF WORKDIR TEMPLATES_DIR
"""
import os
import shutil
import subprocess
import sys


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(args, expect_rc=0, env=None):
    full = dict(os.environ)
    full.pop("ROCM_PERF_TEMPLATES", None)
    full.update(env or {})
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full)
    if p.returncode != expect_rc:
        fail(f"{args}: exit {p.returncode}, wanted {expect_rc}\n{p.stdout}{p.stderr}")
    return p


def main():
    rp, work, templates = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # Found without being told (the source tree this build came from).
    run([rp, "new-test", "vec_scale", "--dir", work])
    d = os.path.join(work, "vec_scale")
    if sorted(os.listdir(d)) != ["CMakeLists.txt", "vec_scale.hip"]:
        fail(f"hip scaffold: {os.listdir(d)}")
    src = open(os.path.join(d, "vec_scale.hip")).read()
    cml = open(os.path.join(d, "CMakeLists.txt")).read()
    for text, what in ((src, "kernel"), (cml, "CMakeLists.txt")):
        if "@NAME@" in text or "@EXT@" in text or "@ARCHITECTURES@" in text:
            fail(f"placeholder left in the {what}")
    if "__global__ void vec_scale_kernel(" not in src or '#include "rpl_harness.h"' not in src:
        fail("kernel source lacks its kernel or the harness")
    if ("rocm_perf_add_kernel_test(vec_scale" not in cml or "SOURCES vec_scale.hip" not in cml
            or "ARCHITECTURES gfx90a gfx940" not in cml):
        fail(f"CMakeLists.txt: {cml}")

    # Never overwrites, and writes nothing when one of the two files exists.
    before = open(os.path.join(d, "vec_scale.hip")).read()
    p = run([rp, "new-test", "vec_scale", "--dir", work], 2)
    if "exists" not in p.stderr or open(os.path.join(d, "vec_scale.hip")).read() != before:
        fail("an existing scaffold was touched")
    os.makedirs(os.path.join(work, "half"))
    open(os.path.join(work, "half", "CMakeLists.txt"), "w").close()
    run([rp, "new-test", "half", "--dir", work], 2)
    if os.listdir(os.path.join(work, "half")) != ["CMakeLists.txt"]:
        fail("a half-existing scaffold got a new file")

    # CUDA flavour, templates from the environment.
    run([rp, "new-test", "cu_test", "--dir", work, "--lang", "cuda"],
        env={"ROCM_PERF_TEMPLATES": templates})
    cml = open(os.path.join(work, "cu_test", "CMakeLists.txt")).read()
    if not os.path.isfile(os.path.join(work, "cu_test", "cu_test.cu")) or "sm_90" not in cml:
        fail("cuda scaffold")

    # Refusals.
    run([rp, "new-test", "1bad", "--dir", work], 2)
    run([rp, "new-test", "a-b", "--dir", work], 2)
    run([rp, "new-test", "ok_name", "--dir", work, "--lang", "opencl"], 2)
    run([rp, "new-test", "ok_name", "--dir", work, "--templates", os.path.join(work, "none")], 3)
    run([rp, "new-test", "--dir", work], 2)
    if os.path.exists(os.path.join(work, "ok_name")):
        fail("a refused call created its directory")

    # The scaffold compiles with whichever GPU compiler this machine has.
    for cc, args in (("/usr/local/cuda/bin/nvcc", ["-x", "cu", "-arch=sm_90"]),
                     (shutil.which("hipcc"), ["-x", "hip", "--offload-arch=gfx90a"])):
        if cc and os.path.exists(cc):
            out = os.path.join(work, "vec_scale.bin")
            run([cc] + args + [f"-I{templates}", "-o", out, os.path.join(d, "vec_scale.hip")])
            print(f"ok: scaffold compiles with {cc}")
            break
    else:
        print("ok: no GPU compiler here, scaffold not compiled")


if __name__ == "__main__":
    main()
