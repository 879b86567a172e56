#!/usr/bin/env python3
"""cmake/RocmPerfLabGate.sh with a stand-in rocm-perf: which program runs on
which GPU, how CTest's GPU id reaches the runtime, how static results of
several architectures combine, and the skip without a GPU.

usage: check_gate_script.py BASH SCRIPT WORKDIR
"""
import os
import shutil
import stat
import subprocess
import sys

# The stand-in: `gpus` prints FAKE_GPUS (vendor list) as rocm-perf's table;
# `gate` logs its arguments and visible devices, writes the JUnit report it
# was asked for and exits with FAKE_RC_<arch> (or FAKE_RC, default 0).
FAKE = r'''#!/bin/bash
[ "$1" = -q ] && shift
if [ "$1" = gpus ]; then
    echo "ID  VENDOR  ARCH  MODEL  FOUND AT"
    i=0
    for v in $FAKE_GPUS; do echo "$i $v - - /fake/$i"; i=$((i + 1)); done
    exit 0
fi
shift
arch=any junit=""
args=("$@")
while (($#)); do
    case $1 in --arch) arch=$2 ;; --junit) junit=$2 ;; esac
    shift
done
echo "GATE arch=$arch hip=${HIP_VISIBLE_DEVICES:-} cuda=${CUDA_VISIBLE_DEVICES:-} args=${args[*]}"
[ -n "$junit" ] && echo "<testsuite/>" >"$junit"
rc_var=FAKE_RC_$arch
exit "${!rc_var:-${FAKE_RC:-0}}"
'''


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    bash, script, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rp = os.path.join(work, "rocm-perf")
    with open(rp, "w") as f:
        f.write(FAKE)
    os.chmod(rp, os.stat(rp).st_mode | stat.S_IXUSR)
    reports = os.path.join(work, "reports")

    def gate(mode, pairs, gate_args, app=(), **env):
        e = {k: v for k, v in os.environ.items() if not k.startswith(("CTEST_RESOURCE", "FAKE"))}
        e.update(env)
        cmd = [bash, script, mode, rp, reports] + pairs + ["--"] + gate_args
        if mode == "dynamic":
            cmd += ["--"] + list(app)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=e)
        return p.returncode, p.stdout

    base = ["--test", "t", "--baseline-dir", "/b"]
    # Static: one gate per architecture, the worst status wins.
    pairs = ["gfx90a=/x/t-hip", "gfx940=/x/t-hip", "sm_90=/x/t-cuda"]
    rc, out = gate("static", pairs, base)
    runs = [l for l in out.splitlines() if l.startswith("GATE")]
    if rc != 0 or len(runs) != 3 or "arch=sm_90" not in runs[2] or "--static /x/t-cuda" not in runs[2]:
        fail(f"static pass: {rc}\n{out}")
    if f"[[ATTACHMENT|{reports}/static-gfx940.junit.xml]]" not in out:
        fail(f"no attachment line\n{out}")
    for env, want in (({"FAKE_RC_gfx940": "1"}, 1), ({"FAKE_RC_gfx940": "1", "FAKE_RC_sm_90": "2"}, 2),
                      ({"FAKE_RC_gfx90a": "3", "FAKE_RC_sm_90": "1"}, 3)):
        rc, out = gate("static", pairs, base, **env)
        if rc != want:
            fail(f"static with {env}: exit {rc}, wanted {want}\n{out}")

    dyn = ["amd=/x/t-hip", "nvidia=/x/t-cuda"]
    # No GPU: skipped, the gate is not run.
    rc, out = gate("dynamic", dyn, base, FAKE_GPUS="")
    if rc != 77 or "GATE" in out or "no GPU" not in out:
        fail(f"no GPU: {rc}\n{out}")
    # AMD only: the hip build, GPU 1 from CTest.
    rc, out = gate("dynamic", dyn, base + ["--tolerance", "5%"], ["--reps", "3"],
                   FAKE_GPUS="amd amd", CTEST_RESOURCE_GROUP_COUNT="1",
                   CTEST_RESOURCE_GROUP_0="gpus", CTEST_RESOURCE_GROUP_0_GPUS="id:1,slots:1")
    if rc != 0 or "hip=1 " not in out or "-- /x/t-hip --reps 3" not in out or "--tolerance 5%" not in out:
        fail(f"amd run: {rc}\n{out}")
    # AMD and NVIDIA GPUs, an NVIDIA-only build: CTest's id 2 is CUDA device 0.
    rc, out = gate("dynamic", ["nvidia=/x/t-cuda"], base, FAKE_GPUS="amd amd nvidia nvidia",
                   CTEST_RESOURCE_GROUP_COUNT="1", CTEST_RESOURCE_GROUP_0_GPUS="id:2,slots:1")
    if rc != 0 or "cuda=0 " not in out or "-- /x/t-cuda" not in out:
        fail(f"nvidia run: {rc}\n{out}")
    # Only an NVIDIA GPU but only an AMD build: skipped.
    rc, out = gate("dynamic", ["amd=/x/t-hip"], base, FAKE_GPUS="nvidia")
    if rc != 77:
        fail(f"amd build on nvidia: {rc}\n{out}")
    # COMMAND programs run on whatever GPU there is; the gate's failure is the test's.
    rc, out = gate("dynamic", ["any=/x/app"], base, ["a b"], FAKE_GPUS="nvidia", FAKE_RC="1")
    if rc != 1 or "-- /x/app a b" not in out:
        fail(f"any run: {rc}\n{out}")
    print("ok")


if __name__ == "__main__":
    main()
