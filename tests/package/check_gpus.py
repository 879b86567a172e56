#!/usr/bin/env python3
"""rocm-perf gpus on fake driver trees, and its resource spec as CTest reads it.

usage: check_gpus.py ROCM_PERF WORKDIR CMAKE CTEST
"""
import json
import os
import shutil
import subprocess
import sys


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(args, expect_rc=0):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if expect_rc is not None and p.returncode != expect_rc:
        fail(f"{args}: exit {p.returncode}, wanted {expect_rc}\n{p.stdout}{p.stderr}")
    return p


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    rp, work, cmake, ctest = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)

    # No GPU: nothing listed, a note, and an empty but valid spec.
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    p = run([rp, "gpus", "--root", empty])
    if p.stdout.strip() or "no GPU found" not in p.stderr:
        fail(f"no-GPU listing: {p.stdout!r} {p.stderr!r}")
    spec = os.path.join(work, "empty.json")
    run([rp, "gpus", "--root", empty, "--ctest-resource-spec", spec])
    want = {"version": {"major": 1, "minor": 0}, "local": [{"gpus": []}]}
    if json.load(open(spec)) != want:
        fail(f"no-GPU spec: {open(spec).read()}")

    # Two AMD GPUs (and the CPU node), two NVIDIA GPUs.
    mixed = os.path.join(work, "mixed")
    write(os.path.join(mixed, "dev/kfd"), "")
    nodes = os.path.join(mixed, "sys/class/kfd/kfd/topology/nodes")
    write(f"{nodes}/0/properties", "cpu_cores_count 64\nsimd_count 0\ngfx_target_version 0\n")
    write(f"{nodes}/1/properties", "simd_count 440\ngfx_target_version 90010\n")
    write(f"{nodes}/2/properties", "simd_count 1216\ngfx_target_version 90402\n")
    nv = os.path.join(mixed, "proc/driver/nvidia/gpus")
    write(f"{nv}/0000:41:00.0/information", "Model: \t\t NVIDIA H200\nIRQ: 1\n")
    write(f"{nv}/0000:05:00.0/information", "Model: \t\t NVIDIA H100 80GB HBM3\n")
    p = run([rp, "gpus", "--root", mixed])
    rows = [line.split() for line in p.stdout.splitlines()[1:]]
    got = [(r[0], r[1], r[2]) for r in rows]
    if got != [("0", "amd", "gfx90a"), ("1", "amd", "gfx942"), ("2", "nvidia", "sm_90"),
               ("3", "nvidia", "sm_90")]:
        fail(f"mixed listing: {p.stdout}")
    if "H100" not in p.stdout.splitlines()[3] or "0000:05:00.0" not in p.stdout.splitlines()[3]:
        fail(f"NVIDIA GPUs not in bus order with their model: {p.stdout}")
    spec = os.path.join(work, "mixed.json")
    run([rp, "gpus", "--root", mixed, "--ctest-resource-spec", spec])
    gpus = json.load(open(spec))["local"][0]["gpus"]
    if gpus != [{"id": str(i), "slots": 1} for i in range(4)]:
        fail(f"mixed spec: {gpus}")

    # Device nodes only (a sandbox without /proc/driver/nvidia).
    devs = os.path.join(work, "devs")
    write(os.path.join(devs, "dev/nvidia0"), "")
    write(os.path.join(devs, "dev/nvidia1"), "")
    write(os.path.join(devs, "dev/nvidiactl"), "")
    p = run([rp, "gpus", "--root", devs])
    if len(p.stdout.splitlines()) != 3 or "/dev/nvidia1" not in p.stdout:
        fail(f"device-node listing: {p.stdout}")

    # ARCH from the model name: products of the arch table, else the family; unknown is "-".
    models = os.path.join(work, "models")
    nv = os.path.join(models, "proc/driver/nvidia/gpus")
    write(f"{nv}/0000:01:00.0/information", "Model: \t\t NVIDIA H100 PCIe\n")
    write(f"{nv}/0000:02:00.0/information", "Model: \t\t NVIDIA A100-SXM4-40GB\n")
    write(f"{nv}/0000:03:00.0/information", "Model: \t\t NVIDIA A10\n")
    write(f"{nv}/0000:04:00.0/information", "Model: \t\t Unknown Accelerator X\n")
    p = run([rp, "gpus", "--root", models])
    arches = [line.split()[2] for line in p.stdout.splitlines()[1:]]
    if arches != ["sm_90", "sm_80", "sm_86", "-"]:
        fail(f"ARCH from model names: {p.stdout}")

    # Bad usage and an unwritable spec.
    run([rp, "gpus", "--bogus"], 2)
    run([rp, "gpus", "extra"], 2)
    run([rp, "gpus", "--ctest-resource-spec"], 2)
    bad = os.path.join(work, "no", "such", "dir", "spec.json")
    p = run([rp, "gpus", "--root", mixed, "--ctest-resource-spec", bad], None)
    if p.returncode not in (2, 3) or os.path.exists(bad) or "rocm-perf:" not in p.stderr:
        fail(f"unwritable spec: exit {p.returncode} {p.stderr!r}")

    # CTest gives two concurrent gpus:1 tests different GPUs of the spec.
    proj = os.path.join(work, "ctest_project")
    write(os.path.join(proj, "CMakeLists.txt"),
          "cmake_minimum_required(VERSION 3.25)\nproject(r LANGUAGES NONE)\nenable_testing()\n"
          "foreach(t a b)\n"
          "  add_test(NAME ${t} COMMAND sh -c \"echo GROUP=$CTEST_RESOURCE_GROUP_0_GPUS; sleep 1\")\n"
          "  set_tests_properties(${t} PROPERTIES RESOURCE_GROUPS gpus:1)\n"
          "endforeach()\n")
    build = os.path.join(work, "ctest_build")
    run([cmake, "-S", proj, "-B", build])
    p = run([ctest, "--test-dir", build, "-j2", "-V", "--resource-spec-file", spec])
    ids = sorted(set(line.split("GROUP=")[1].strip() for line in p.stdout.splitlines()
                     if "GROUP=id:" in line))
    if len(ids) != 2:
        fail(f"CTest did not give the two tests different GPUs: {ids}\n{p.stdout}")
    print("ok:", ids)


if __name__ == "__main__":
    main()
