#!/usr/bin/env python3
"""rocm_perf_add_kernel_test(... TUNE): the <name>_tune targets run `rocm-perf
autotune` with the space, a command template and (SOURCES) a build template
that the autotune template rules split back into the right words.

usage: check_tune_target.py CMAKE SOURCE_DIR WORK_DIR RPL_CMAKE_DIR
"""
import os
import shlex
import shutil
import subprocess
import sys


def fail(msg, out=""):
    print(out, file=sys.stderr)
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def template_words(text):
    """The autotune splitting rules for the quoting these templates use ('...', \\')."""
    return shlex.split(text, posix=True)


def build_target(cmake, build, target, log):
    env = dict(os.environ, RPL_TUNE_ARGV_LOG=log)
    p = subprocess.run([cmake, "--build", build, "--target", target], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    if p.returncode != 0:
        fail(f"building {target} failed", p.stdout)
    return open(log).read().splitlines()


def option(argv, name):
    if name not in argv:
        fail(f"{name} missing from {argv}")
    return argv[argv.index(name) + 1]


def main():
    cmake, src, work, cmake_dir = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    build = os.path.join(work, "build")
    p = subprocess.run([cmake, "-S", src, "-B", build, f"-DRPL_CMAKE_DIR={cmake_dir}"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail("configure failed", p.stdout)
    argv = build_target(cmake, build, "cmd.tile_tune", os.path.join(work, "cmd.argv"))
    if argv[0] != "autotune":
        fail(f"not an autotune call: {argv}")
    if option(argv, "--space") != os.path.join(src, "space.json"):
        fail(f"--space {option(argv, '--space')}")
    cmd = template_words(option(argv, "--cmd-template"))
    if cmd != ["/opt/my app/kernel", "--bm", "{BM}", "--tag", "it's {U}"]:
        fail(f"command template words {cmd}")
    if "--build-template" in argv or "--arch" in argv:
        fail(f"a COMMAND test builds nothing: {argv}")
    if option(argv, "--kernel") != "tile" or option(argv, "--budget") != "25%" or \
            option(argv, "--block") != "BM*2":
        fail(f"KERNEL and TUNE_ARGS: {argv}")
    reports = os.path.join(build, "rocm-perf", "cmd.tile")
    if option(argv, "--json") != os.path.join(reports, "tune.json") or \
            option(argv, "--cache") != os.path.join(build, "rocm-perf", "autotune.db"):
        fail(f"outputs: {argv}")
    if not os.path.isdir(reports):
        fail("the report folder is made before the run")
    if "src.tile_tune" not in open(os.path.join(build, "Makefile")).read():
        print("hipcc not found: the SOURCES case is not checked")
        return
    argv = build_target(cmake, build, "src.tile_tune", os.path.join(work, "src.argv"))
    words = template_words(option(argv, "--build-template"))
    if not words[0].endswith("hipcc") or "--offload-arch=gfx90a" not in words or \
            "--offload-arch=gfx942" not in words:
        fail(f"build template words {words}")
    for want in ("-DBM={BM}", "-DU={U}"):
        if want not in words:
            fail(f"{want} missing from {words}")
    i = words.index("-o")
    # The source's own braces are doubled: they stay literal for autotune.
    if words[i + 1] != "{OUT}" or words[-1] != os.path.join(src, "kernel {{x}}.hip"):
        fail(f"output and source: {words}")
    if template_words(option(argv, "--cmd-template")) != ["{OUT}"] or \
            option(argv, "--arch") != "gfx90a":
        fail(f"command and arch: {argv}")
    print("ok")


if __name__ == "__main__":
    main()
