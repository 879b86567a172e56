#!/usr/bin/env python3
"""Use rocm-perf-lab from a consumer project, as a user would.

--mode install: install the build into a prefix, move the prefix (the package
must be relocatable), check its layout and pkg-config file, configure
tests/package/consumer against it, record its static baselines
(ROCM_PERF_UPDATE_BASELINES=1), run `ctest -L perf` (static tests pass, GPU
tests skip with no GPU, JUnit written), check that the version file refuses
another major version, then build the kernel variant with 32 KiB of LDS and
check that its static gate fails naming the metric and both values.

--mode buildtree: the same consumer against the build tree
(CMAKE_PREFIX_PATH=<build dir>), with a `rocm-perf new-test` scaffold added:
its static gates and the scaffold's run the build's rocm-perf and pass.

--mode subdir: configure the consumer with the sources embedded through
add_subdirectory(); find_package() must find the embedded project, the
kernel tests must be registered with the in-tree rocm-perf, the project's own
tests must stay out, and the kernels must build.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, expect=0, env=None, cwd=None):
    """Run cmd; return (rc, output).  expect: 0, 'nonzero' or None (any)."""
    print("+", " ".join(cmd), flush=True)
    full_env = dict(os.environ)
    full_env.pop("ROCM_PERF_UPDATE_BASELINES", None)
    full_env.update(env or {})
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=full_env, cwd=cwd)
    if expect == 0 and p.returncode != 0:
        print(p.stdout)
        fail(f"exit status {p.returncode}: {' '.join(cmd)}")
    if expect == "nonzero" and p.returncode == 0:
        print(p.stdout)
        fail(f"expected a failure: {' '.join(cmd)}")
    return p.returncode, p.stdout


def inspect_json(rocm_perf, exe):
    _, out = run([rocm_perf, "inspect", "--json", exe])
    return {k["arch"]: k for k in json.loads(out)["kernels"] if "scale" in k["name"]}


def check_layout(prefix, source, build, stage):
    libdir = "lib"
    cmakedir = os.path.join(prefix, libdir, "cmake", "RocmPerfLab")
    for rel in ("bin/rocm-perf", f"{libdir}/librpl.a", "include/rpl/version.h",
                "include/rpl/trace.h", f"{libdir}/pkgconfig/rocm-perf-lab.pc",
                "share/rocm-perf-lab/templates/rpl_harness.h",
                "share/rocm-perf-lab/templates/kernel-test/kernel.in"):
        if not os.path.isfile(os.path.join(prefix, rel)):
            fail(f"not installed: {rel}")
    names = sorted(os.listdir(cmakedir))
    for want in ("RocmPerfLabConfig.cmake", "RocmPerfLabConfigVersion.cmake",
                 "RocmPerfLabToolTargets.cmake", "RocmPerfLabLibraryTargets.cmake",
                 "RocmPerfLab.cmake", "RocmPerfLabGate.sh"):
        if want not in names:
            fail(f"{want} missing from {cmakedir}: {names}")
    # Relocatable: no file of the package names where it was built or installed.
    for name in names + ["../../pkgconfig/rocm-perf-lab.pc"]:
        path = os.path.join(cmakedir, name)
        if not os.path.isfile(path):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        for where in (source, build, stage):
            if where in text:
                fail(f"{name} holds the absolute path {where}: not relocatable")


def check_pkg_config(prefix, source, work):
    pc = shutil.which("pkg-config")
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not pc or not cc:
        print("pkg-config or cc missing: pkg-config check not run")
        return
    env = {"PKG_CONFIG_PATH": os.path.join(prefix, "lib", "pkgconfig")}
    _, flags = run([pc, "--static", "--cflags", "--libs", "rocm-perf-lab"], env=env)
    incs = [os.path.normpath(f[2:]) for f in flags.split() if f.startswith("-I")]
    if os.path.join(prefix, "include") not in incs or "-lrpl" not in flags or "-lsqlite3" not in flags:
        fail(f"pkg-config flags lack the prefix include dir, -lrpl or -lsqlite3: {flags}")
    exe = os.path.join(work, "use_rpl_pc")
    run([cc, "-o", exe, os.path.join(source, "tests/package/consumer/use_rpl.c")] + flags.split())
    _, out = run([exe])
    if "ok" not in out:
        fail(f"use_rpl built through pkg-config: {out}")


def junit_cases(path):
    root = ET.parse(path).getroot()
    return {c.get("name"): c for c in root.iter("testcase")}


def gpu_count(rocm_perf):
    _, out = run([rocm_perf, "-q", "gpus"])
    return sum(1 for line in out.splitlines()[1:] if line.strip())


def install_mode(a):
    stage = os.path.join(a.work, "stage")
    prefix = os.path.join(a.work, "prefix")
    bld = os.path.join(a.work, "build")
    for d in (stage, prefix, bld):
        shutil.rmtree(d, ignore_errors=True)
    run([a.cmake, "--install", a.build, "--prefix", stage])
    shutil.move(stage, prefix)
    check_layout(prefix, a.source, a.build, stage)
    check_pkg_config(prefix, a.source, a.work)
    rocm_perf = os.path.join(prefix, "bin", "rocm-perf")

    run([a.cmake, "-S", a.consumer, "-B", bld, f"-DCMAKE_PREFIX_PATH={prefix}"])
    run([a.cmake, "--build", bld, "-j2"])
    exes = [os.path.join(bld, n) for n in ("consumer.scale-hip", "consumer.scale-cuda")]
    exes = [e for e in exes if os.path.exists(e)]
    if not exes:
        fail("no kernel executable was built (neither hipcc nor nvcc?)")
    plain = {}
    for e in exes:
        plain.update(inspect_json(rocm_perf, e))
    archs = sorted(plain)

    ctest = [a.ctest, "--test-dir", bld, "--output-on-failure"]
    run(ctest + ["-L", "^static$"], env={"ROCM_PERF_UPDATE_BASELINES": "1"})
    for arch in archs:
        if not os.path.isfile(os.path.join(bld, "baselines", arch, "consumer.scale.json")):
            fail(f"no baseline recorded for {arch}")
    if len(glob.glob(os.path.join(bld, "baselines", "*", "consumer.cmd.json"))) != 1:
        fail("the COMMAND test recorded no baseline (or more than one)")

    junit = os.path.join(a.work, "junit.xml")
    _, out = run(ctest + ["-V", "-L", "^perf$", "--output-junit", junit])
    cases = junit_cases(junit)
    want = {"consumer.scale", "consumer.scale.static", "consumer.cmd", "consumer.cmd.static"}
    if set(cases) != want:
        fail(f"ctest -L perf ran {sorted(cases)}")
    for name in ("consumer.scale.static", "consumer.cmd.static"):
        if cases[name].get("status") != "run":
            fail(f"{name} did not pass")
    if gpu_count(rocm_perf) == 0:
        for name in ("consumer.scale", "consumer.cmd"):
            skipped = cases[name].find("skipped")
            if skipped is None or "77" not in (skipped.get("message") or ""):
                fail(f"{name} was not skipped with 77 on a machine without a GPU")
    reports = os.path.join(bld, "rocm-perf", "consumer.scale")
    for arch in archs:
        rep = os.path.join(reports, f"static-{arch}.junit.xml")
        if not os.path.isfile(rep):
            fail(f"the gate wrote no JUnit report {rep}")
        ET.parse(rep)
        if f"[[ATTACHMENT|{rep}]]" not in out:
            fail(f"no attachment line for {rep}")

    ver = os.path.join(a.work, "version_check")
    shutil.rmtree(ver, ignore_errors=True)
    os.makedirs(os.path.join(ver, "src"))
    with open(os.path.join(ver, "src", "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.25)\nproject(v LANGUAGES NONE)\n"
                "find_package(RocmPerfLab 1.0 REQUIRED)\n")
    _, out = run([a.cmake, "-S", os.path.join(ver, "src"), "-B", os.path.join(ver, "b"),
                  f"-DCMAKE_PREFIX_PATH={prefix}"], expect="nonzero")
    if "version" not in out or "RocmPerfLab" not in out:
        fail(f"find_package(RocmPerfLab 1.0) failed for another reason: {out[-600:]}")

    # Without the library's pkg-config files, or in a project without C: the
    # program and the function are still found; the library component is not.
    nopc = {"PKG_CONFIG_LIBDIR": os.path.join(a.work, "no-pkgconfig"), "PKG_CONFIG_PATH": ""}
    for name, comps, expect in (("tool_only", "", 0), ("library", " COMPONENTS library", "nonzero"),
                                ("no_c", "", 0)):
        src = os.path.join(ver, name)
        os.makedirs(src)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.25)\n"
                    f"project(t LANGUAGES {'NONE' if name == 'no_c' else 'C'})\n"
                    f"enable_testing()\nfind_package(RocmPerfLab 0.1 REQUIRED{comps})\n"
                    "rocm_perf_add_kernel_test(t COMMAND /bin/true ARCHITECTURES sm_90)\n"
                    "if(TARGET RocmPerfLab::rpl)\n  message(FATAL_ERROR \"rpl without its deps\")\n"
                    "endif()\n")
        _, out = run([a.cmake, "-S", src, "-B", os.path.join(ver, name + "_b"),
                      f"-DCMAKE_PREFIX_PATH={prefix}"], expect=expect,
                     env={} if name == "no_c" else nopc)
        if expect and "RocmPerfLab::rpl needs: sqlite3, libcjson" not in " ".join(out.split()):
            fail(f"a required library component without pkg-config files: {out[-800:]}")

    # The heavy variant against the plain kernel's baseline.
    run([a.cmake, "-S", a.consumer, "-B", bld, "-DCONSUMER_HEAVY=ON"])
    run([a.cmake, "--build", bld, "-j2"])
    heavy = {}
    for e in exes:
        heavy.update(inspect_json(rocm_perf, e))
    _, out = run(ctest + ["-L", "^static$"], expect="nonzero")
    for arch in archs:
        old, new = plain[arch]["lds_bytes"], heavy[arch]["lds_bytes"]
        if new <= old:
            fail(f"{arch}: the heavy variant has no more LDS ({old} -> {new})")
        pat = re.compile(rf"(lds|shared)[^\n]*\b{old}\b[^\n]*\b{new}\b", re.IGNORECASE)
        if not pat.search(out):
            print(out)
            fail(f"{arch}: no line names the LDS metric with old {old} and new {new}")
    print(f"ok: static gates pass and fail as they should for {', '.join(archs)}")


def subdir_mode(a):
    bld = os.path.join(a.work, "build")
    shutil.rmtree(bld, ignore_errors=True)
    run([a.cmake, "-S", a.consumer, "-B", bld, f"-DRPL_SOURCE_DIR={a.source}"])
    _, out = run([a.ctest, "--test-dir", bld, "--show-only=json-v1"])
    tests = {t["name"]: t for t in json.loads(out)["tests"]}
    for want in ("consumer.scale", "consumer.scale.static", "consumer.use_rpl"):
        if want not in tests:
            fail(f"{want} not registered: {sorted(tests)}")
    if "format_check" in tests or any(n.startswith("test_") for n in tests):
        fail("the embedded project registered its own test suite")
    tool = os.path.join(bld, "rocm-perf-lab", "src", "cli", "rocm-perf")
    for name in ("consumer.scale", "consumer.scale.static"):
        if tool not in tests[name]["command"]:
            fail(f"{name} does not run the in-tree rocm-perf: {tests[name]['command']}")
        labels = next(p["value"] for p in tests[name]["properties"] if p["name"] == "LABELS")
        if "perf" not in labels or "consumer" not in labels:
            fail(f"{name} labels: {labels}")
    gpu = {p["name"]: p["value"] for p in tests["consumer.scale"]["properties"]}
    if gpu.get("RESOURCE_GROUPS") != [{"requirements": [{".type": "gpus", "slots": 1}]}]:
        fail(f"consumer.scale RESOURCE_GROUPS: {gpu.get('RESOURCE_GROUPS')}")
    if str(gpu.get("SKIP_RETURN_CODE")) != "77":
        fail(f"consumer.scale SKIP_RETURN_CODE: {gpu.get('SKIP_RETURN_CODE')}")
    run([a.cmake, "--build", bld, "--target", "consumer.scale.kernels", "-j2"])
    built = [n for n in ("consumer.scale-hip", "consumer.scale-cuda")
             if os.path.exists(os.path.join(bld, n))]
    if not built:
        fail("no kernel executable was built")
    print(f"ok: embedded through add_subdirectory; built {', '.join(built)}")


def buildtree_mode(a):
    bld = os.path.join(a.work, "build")
    shutil.rmtree(bld, ignore_errors=True)
    scaffold = os.path.join(a.work, "scaffold")
    shutil.rmtree(scaffold, ignore_errors=True)
    tool = os.path.join(a.build, "src", "cli", "rocm-perf")
    run([tool, "new-test", "vec_add", "--dir", scaffold])
    run([a.cmake, "-S", a.consumer, "-B", bld, f"-DCMAKE_PREFIX_PATH={a.build}",
         f"-DCONSUMER_EXTRA_DIR={scaffold}/vec_add"])
    run([a.cmake, "--build", bld, "-j2"])
    _, out = run([a.ctest, "--test-dir", bld, "--show-only=json-v1"])
    static = next(t for t in json.loads(out)["tests"] if t["name"] == "consumer.scale.static")
    if tool not in static["command"]:
        fail(f"consumer.scale.static does not run the build tree's rocm-perf: {static['command']}")
    ctest = [a.ctest, "--test-dir", bld, "--output-on-failure", "-L", "^static$"]
    run(ctest, env={"ROCM_PERF_UPDATE_BASELINES": "1"})
    _, out = run(ctest + ["-V"])
    for name in ("consumer.scale.static", "vec_add.static"):
        if not re.search(rf"Test +#\d+: {re.escape(name)} \.+ +Passed", out):
            fail(f"{name} did not pass:\n{out[-2000:]}")
    if not glob.glob(os.path.join(scaffold, "vec_add", "baselines", "*", "vec_add.json")):
        fail("the scaffold's test recorded no baseline in its baselines/ directory")
    run([a.ctest, "--test-dir", bld, "--output-on-failure", "-R", "use_rpl"])
    print("ok: the build tree as a package, with a new-test scaffold")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=("install", "subdir", "buildtree"), required=True)
    for opt in ("cmake", "ctest", "source", "build", "work", "consumer"):
        p.add_argument(f"--{opt}", required=True)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    {"install": install_mode, "subdir": subdir_mode, "buildtree": buildtree_mode}[a.mode](a)


if __name__ == "__main__":
    main()
