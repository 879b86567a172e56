#!/usr/bin/python3
"""rocm-perf optimize through the real CLI, with test doubles only at process
boundaries: the compiler (doubles/hipcc) and the rocm-perf children that need a GPU
(doubles/fake-rocm-perf: capture, replay, profile).  Every scenario runs in a fresh
git repository; the user's HEAD, index and working tree are hashed before and after
each and must not change.

usage: optimize_cli_test.py ROCM_PERF OPTCHECK SOURCE_DIR SCENARIO CMAKE
"""
import glob
import hashlib
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # nothing written into the source tree
from scratch_repo import DOUBLES, VALIDATE_JSON, ScratchRepo, check, failures, sh  # noqa: E402

ROCM_PERF, OPTCHECK, SRC_DIR, SCENARIO, CMAKE = sys.argv[1:6]
TARGET_SCHEMA = os.path.join(SRC_DIR, "docs", "schemas", "target.schema.json")
XSD = os.path.join(SRC_DIR, "tests", "gate", "junit.xsd")

KERNELS = """\
// Kernels for the optimize tests; comments script the hipcc double.
{header}
extern "C" __global__ void scale(float *x, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;{scale_extra}
    for (int k = 0; k < n; k++)
        acc += x[(i + k) % n];
    x[i] = acc;
}}

extern "C" __global__ void shift(float *x, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 1.0f;
    for (int k = 0; k < n; k++)
        acc *= x[(i + k) % n];
    x[i] = acc;
}}

extern "C" __global__ void blocked(float *x, int n)
{{
    __shared__ float tile[256];
    for (int k = 0; k < n; k++) {{
        tile[threadIdx.x] = x[k];
        __syncthreads();
        x[k] = tile[255 - threadIdx.x];
    }}
}}
"""

class Env(ScratchRepo):
    """The scratch repository (scratch_repo.py) with KERNELS as src/kern.hip and
    notes.txt staged."""

    def __init__(self, header="// FAKE-IF-UNROLLED(scale): time=80 app_ns=900000",
                 scale_extra="", text=None):
        super().__init__(SCENARIO, "rpl-optimize-",
                         text or KERNELS.format(header=header, scale_extra=scale_extra),
                         staged=True)

    def run(self, *args, env_extra=None, expect=None, app="./kern --size 64"):
        argv = [ROCM_PERF, "optimize", self.source] + ([app] if app else []) + [
                "--artifacts", self.art,
                "--rounds", "4", "--iterations", "5", "--seed", "7"] + list(args)
        return self.run_cli(argv, self.environ(**(env_extra or {})), 300, expect)

    def junit(self):
        path = os.path.join(self.art, "junit.xml")
        r = subprocess.run(["xmllint", "--noout", "--schema", XSD, path], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"{SCENARIO}: junit.xml does not validate: {r.stderr}")
        return ET.parse(path).getroot()


def candidate(env, directive=None, replace=None):
    """The source with `scale` changed: a directive comment in its body, or a replacement."""
    with open(env.source) as f:
        text = f.read()
    if directive:
        text = text.replace("float acc = 0.0f;", "float acc = 0.0f; // FAKE: " + directive, 1)
    if replace:
        text = text.replace(replace[0], replace[1], 1)
    path = os.path.join(env.tmp, "candidate.hip")
    with open(path, "w") as f:
        f.write(text)
    return path


def junit_case(env):
    cases = env.junit().findall("./testsuite/testcase")
    check(len(cases) == 1, f"{SCENARIO}: {len(cases)} testcases, wanted 1")
    return cases[0] if cases else None


# ---- scenarios ---------------------------------------------------------------


def rules_accepted():
    env = Env(header="// FAKE-IF-UNROLLED(scale): time=80 app_ns=900000\n"
                     "// FAKE-IF-UNROLLED(shift): time=99")
    env.run("--auto-approve", expect=0)
    check("blocked" not in env.out or "__syncthreads" in env.out,
          f"{SCENARIO}: the blocked loop's reason is missing:\n{env.out}")
    br = env.branches()
    check(len(br) == 1 and br[0].startswith("rocm-perf/opt/scale/"),
          f"{SCENARIO}: branches {br}")
    if br:
        info = json.loads(sh(OPTCHECK, env.repo, br[0]))
        t = info["trailers"]
        check(info["subject"].startswith("perf(scale): unroll x4 (loop 0, line ") and
              "(-" in info["subject"] and len(info["subject"]) <= 72,
              f"{SCENARIO}: subject {info['subject']}")
        # The metrics table: n/a for what the platform lacks, times in readable units.
        body = sh("git", "log", "-1", "--format=%B", br[0], cwd=env.repo)
        rows = [[c.strip() for c in line.split("|")[1:-1]] for line in body.splitlines()
                if line.startswith("| ") and not line.startswith("| metric")]
        check(rows and all(c != "-1" and "e+" not in c for r in rows for c in r[1:]),
              f"{SCENARIO}: metrics table\n{body}")
        times = [r for r in rows if r[0].endswith("_ns")]
        check(times and all(re.fullmatch(r"[0-9.]+ (ns|us|ms|s)|n/a", c)
                            for r in times for c in r[1:]), f"{SCENARIO}: times\n{body}")
        for key in ["Rocm-Perf-Speedup", "Rocm-Perf-CI95", "Rocm-Perf-Correctness",
                    "Rocm-Perf-Baseline", "Rocm-Perf-Snapshot", "Rocm-Perf-Tool"]:
            check(key in t, f"{SCENARIO}: trailer {key} missing: {t}")
        check(float(t.get("Rocm-Perf-Speedup", "0")) > 1.2, f"{SCENARIO}: speedup {t}")
        head = sh("git", "rev-parse", "HEAD", cwd=env.repo).strip()
        check(t.get("Rocm-Perf-Baseline") == head, f"{SCENARIO}: baseline {t}")
        parent = sh("git", "rev-parse", br[0] + "^", cwd=env.repo).strip()
        check(parent == head, f"{SCENARIO}: the branch does not start at HEAD")
        changed = sh("git", "diff", "--name-only", head, br[0], cwd=env.repo).split()
        check(changed == ["src/kern.hip"], f"{SCENARIO}: the commit changes {changed}")
        diff = sh("git", "diff", head, br[0], cwd=env.repo)
        check("+    #pragma unroll 4" in diff, f"{SCENARIO}: diff\n{diff}")
        log = env.log()
        digest = [s["digest"] for s in log["snapshots"] if s["kernel"] == "scale"]
        check(digest and t.get("Rocm-Perf-Snapshot") == digest[0],
              f"{SCENARIO}: snapshot digest {digest} vs {t}")
        manifest = os.path.join(env.art, "snapshots", "scale.manifest")
        check(os.path.exists(manifest) and "sha256:" + hashlib.sha256(
            open(manifest, "rb").read()).hexdigest() == t.get("Rocm-Perf-Snapshot"),
            f"{SCENARIO}: the manifest's digest is not the trailer's")
        check([r["kernel"] for r in log["ranked"]] == ["scale", "shift", "blocked"] and
              log["ranked_by"] == "critical_path", f"{SCENARIO}: ranking {log['ranked']}")
        decisions = {c["kernel"]: c["decision"] for c in log["candidates"]}
        check(decisions == {"scale": "accepted", "shift": "not-significant"},
              f"{SCENARIO}: decisions {decisions}")
        cases = env.junit().findall("./testsuite/testcase")
        check(len(cases) == 2, f"{SCENARIO}: {len(cases)} testcases")
        fails = [c.find("failure").get("type") for c in cases if c.find("failure") is not None]
        check(fails == ["not-significant"], f"{SCENARIO}: JUnit failures {fails}")
        summary = open(os.path.join(env.art, "summary.md")).read()
        check("| c01-" in summary and "accepted" in summary, f"{SCENARIO}: summary\n{summary}")
        for c in log["candidates"]:
            check(os.path.exists(c["source"]) and os.path.exists(c["build_log"]),
                  f"{SCENARIO}: candidate files missing {c['source']}")
    env.done()


def dry_run():
    env = Env()
    env.run(expect=0)
    check(env.branches() == [], f"{SCENARIO}: a dry run made {env.branches()}")
    check("dry run" in env.out, f"{SCENARIO}: no dry-run note:\n{env.out}")
    env.done()


DECISIONS = {
    # scenario: (candidate directive or replacement, JUnit type, words in the message, extra args)
    "build": ("build=fail", "build", "compiler failed", []),
    "signature": (("float *x, int n)\n{\n    int i", "double *x, int n)\n{\n    int i"),
                  "signature", "parameter", []),
    "static": ("spill=4", "static", "spills 0 -> 4", []),
    "wrong_result": ("replay=wrong", "wrong-result", "wrong result", []),
    "writes_outside": ("replay=outside", "wrong-result", "writes outside the outputs", []),
    "nondeterministic": ("replay=nondet", "nondeterministic", "different bytes", []),
    "crash": ("replay=crash", "wrong-result", "killed", []),
    "fresh_seeds": ("app=fail-seed", "wrong-result", "own check failed with --seed",
                    ["--seed-flag", "--seed"]),
    "slower": ("time=130", "slower", "speedup 0.7", []),
    "not_significant": ("time=99", "not-significant", "needs > 1.020x", []),
    "app_slower": ("time=70 app_ns=1200000,1180000,1230000", "slower", "whole-app critical path",
                   []),
    "accepted": ("time=70", None, "faster", ["--auto-approve"]),
}


def decision(name):
    directive, jtype, words, extra = DECISIONS[name]
    env = Env(header="// no directives in the original")
    if isinstance(directive, tuple):
        path = candidate(env, replace=directive)
    else:
        path = candidate(env, directive=directive)
    env.run("--candidate", path, *extra, expect=0 if jtype is None else 1)
    case = junit_case(env)
    if case is not None:
        failure = case.find("failure")
        if jtype is None:
            check(failure is None, f"{SCENARIO}: accepted but JUnit says {failure}")
        else:
            check(failure is not None and failure.get("type") == jtype,
                  f"{SCENARIO}: JUnit failure {failure.attrib if failure is not None else None}")
            check(failure is not None and words in failure.get("message", ""),
                  f"{SCENARIO}: message lacks '{words}': "
                  f"{failure.get('message') if failure is not None else ''}")
    log = env.log()
    check(log["candidates"][0]["origin"] == "file", f"{SCENARIO}: origin")
    if jtype is None:
        br = env.branches()
        check(len(br) == 1, f"{SCENARIO}: branches {br}")
    else:
        check(env.branches() == [], f"{SCENARIO}: a rejected run left {env.branches()}")
    env.done()


def slight():
    """A candidate confirmed 0.02% slower (the whole CI below 1, by far less than --min-gain)
    is not significant, not slower, and its numbers print with the digits that tell them
    apart (run 6 printed "speedup 1.000x (95% CI 1.000-1.000)")."""
    env = Env(header="// FAKE: spread=0.0001")
    env.run("--candidate", candidate(env, directive="time=100.02"), expect=1)
    case = junit_case(env)
    failure = case.find("failure") if case is not None else None
    check(failure is not None and failure.get("type") == "not-significant",
          f"{SCENARIO}: JUnit failure {failure.attrib if failure is not None else None}")
    c = env.log()["candidates"][0]
    check(c["speedup_ci"][1] < 1, f"{SCENARIO}: wanted a CI wholly below 1: {c['speedup_ci']}")
    m = re.search(r"speedup (\d\.\d+)x \(95% CI (\d\.\d+)-(\d\.\d+)\)", failure.get("message"))
    check(m is not None, f"{SCENARIO}: no speedup in {failure.get('message')}")
    check(m.group(1).startswith("0.9998") and m.group(2) != m.group(3)
          and not m.group(3).startswith("1.0"), f"{SCENARIO}: printed {m.group(0)}")
    env.done()


def same():
    """An A/A pair: a median 0.3% slower inside a CI that holds 1 is not significant, not
    slower ("slower" needs the whole CI below 1)."""
    env = Env(header="// FAKE: spread=0.05")
    env.run("--candidate", candidate(env, directive="time=100.3"), expect=1)
    case = junit_case(env)
    failure = case.find("failure") if case is not None else None
    check(failure is not None and failure.get("type") == "not-significant",
          f"{SCENARIO}: JUnit failure {failure.attrib if failure is not None else None}")
    c = env.log()["candidates"][0]
    check(c["speedup"] < 1 and c["speedup_ci"][0] < 1 < c["speedup_ci"][1],
          f"{SCENARIO}: wanted a speedup below 1 with a CI holding 1: {c['speedup']} "
          f"{c['speedup_ci']}")
    env.done()


def app_noise():
    """The whole-app gate is statistical: a candidate whose first whole-app profile is 6%
    slower, but whose 5 profiles are not (median equal to the original's), is accepted; the
    app step's evidence gives the ratio with its CI."""
    env = Env(header="// no directives in the original")
    path = candidate(env, directive="time=70 app_ns=1060000,990000,1000000,1010000,970000")
    env.run("--candidate", path, "--auto-approve", expect=0)
    c = env.log()["candidates"][0]
    app = c["steps"].get("app", {"evidence": ""})
    check(c["decision"] == "accepted", f"{SCENARIO}: decision {c['decision']}: {c['message']}")
    check("ratio 1.000 (95% CI" in app["evidence"] and
          "5 profiles each (ABAB)" in app["evidence"], f"{SCENARIO}: app evidence {app}")
    check(not os.path.exists(os.path.join(env.art, "candidates", c["id"], "app-rounds")) and
          os.path.exists(os.path.join(env.art, "candidates", c["id"], "profile", "dag.json")),
          f"{SCENARIO}: the candidate's profiles are not as expected")
    env.done()


def rank_recorded():
    """The ranking reads the dag.json that `rocm-perf analyze` really writes: the one of
    the database recorded on a GPU from gpu/cupti/saxpy_copy.cu (copy-bound; both kernels
    on the critical path, saxpy 0.33%, copy 0.30%)."""
    tmp = tempfile.mkdtemp(prefix="rpl-optimize-dag-")
    subprocess.run([ROCM_PERF, "analyze", os.path.join(SRC_DIR, "tests", "fixtures", "recorded",
                                                       "saxpy_copy.db"), "--out", tmp],
                   check=True, capture_output=True)
    dag = os.path.join(tmp, "dag.json")
    text = ("// FAKE: dag=" + dag + "\n"
            "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
            "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (i < n)\n        y[i] = a * x[i] + y[i];\n}\n\n"
            "__global__ void copy(int n, const float *x, float *y)\n"
            "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (i < n)\n        y[i] = x[i];\n}\n")
    env = Env(text=text)
    env.run(expect=0)
    log = env.log()
    check(log["ranked_by"] == "critical_path" and
          [r["kernel"] for r in log["ranked"]] == ["saxpy", "copy"],
          f"{SCENARIO}: ranked {log['ranked']} by {log['ranked_by']}\n{env.err}")
    env.done()
    shutil.rmtree(tmp)


def rank_gpu_time():
    """No kernel on the critical path (copies hold it all): ranked by GPU time, and said."""
    env = Env(header="// FAKE: frac_scale=0 frac_shift=0 frac_blocked=0 gpu_scale=2000 "
                     "gpu_shift=6000 gpu_blocked=1000")
    env.run(expect=0)
    log = env.log()
    check(log["ranked_by"] == "gpu_time", f"{SCENARIO}: ranked_by {log['ranked_by']}")
    check([r["kernel"] for r in log["ranked"]] == ["shift", "scale", "blocked"],
          f"{SCENARIO}: ranking {log['ranked']}")
    check("ranked by their share of GPU time" in env.err, f"{SCENARIO}: no warning:\n{env.err}")
    env.done()


def dirty():
    env = Env()
    with open(env.source, "a") as f:
        f.write("// edited\n")
    env.before = env.state()
    env.run("--auto-approve", expect=2)
    check("--allow-dirty" in env.err and "modified" in env.err, f"{SCENARIO}: {env.err}")
    check(not os.path.exists(os.path.join(env.art, "junit.xml")), f"{SCENARIO}: reports written")
    env.run("--auto-approve", "--allow-dirty", expect=0)
    br = env.branches()
    check(len(br) == 1, f"{SCENARIO}: --allow-dirty made {br}")
    if br:
        text = sh("git", "show", br[0] + ":src/kern.hip", cwd=env.repo)
        check("// edited" in text, f"{SCENARIO}: the commit lacks the working tree's edit")
    env.done()


def push():
    env = Env()
    bare = os.path.join(env.tmp, "remote.git")
    sh("git", "init", "-q", "--bare", bare)
    env.run("--auto-approve", "--push", bare, expect=0)
    br = env.branches()
    remote = sh("git", "for-each-ref", "--format=%(refname:short) %(objectname)",
                "refs/heads/", cwd=bare).split("\n")
    local = [b + " " + sh("git", "rev-parse", b, cwd=env.repo).strip() for b in br]
    check(len(local) == 1 and local[0] in remote, f"{SCENARIO}: remote has {remote}, local {local}")
    check("pushed " in env.out, f"{SCENARIO}: {env.out}")
    env.done()


def test_target():
    env = Env()
    build = os.path.join(env.tmp, "build")
    os.makedirs(os.path.join(build, "rocm-perf", "kern"))
    with open(os.path.join(build, "rocm-perf", "kern", "target.json"), "w") as f:
        json.dump({"schema_version": "1.0", "name": "kern", "sources": [env.source],
                   "kernel": "scale", "build_command": ["hipcc", "-O3", "-o", "{out}", "{src}"],
                   "test_command": ["{out}", "--size", "64"], "seed_flag": "--seed",
                   "baseline": None}, f)
    argv = [ROCM_PERF, "optimize", "--test", "kern", "--build-dir", build, "--artifacts", env.art,
            "--rounds", "3", "--iterations", "5", "--auto-approve"]
    env.run_cli(argv, env.environ(), 300, expect=0)
    check("test 2/2 fresh seeds passed" in json.dumps(env.log()),
          f"{SCENARIO}: the fresh seeds did not run")
    check(len(env.branches()) == 1, f"{SCENARIO}: branches {env.branches()}")
    p = subprocess.run(argv[:2] + ["--test", "nope", "--build-dir", build], capture_output=True,
                       text=True)
    check(p.returncode == 2 and "target.json" in p.stderr, f"{SCENARIO}: {p.stderr}")
    env.done()


def default_artifacts():
    """No --artifacts, run from the work tree: ./rocm-perf-optimize holds a .gitignore of
    "*", as pytest and ruff do with their caches, so `git status` does not change."""
    env = Env()
    status = sh("git", "status", "--porcelain", "--untracked-files=all", cwd=env.repo)
    argv = [ROCM_PERF, "optimize", env.source, "./kern --size 64", "--rounds", "4",
            "--iterations", "5", "--seed", "7"]
    p = subprocess.run(argv, env=env.environ(), cwd=env.repo, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=300)
    check(p.returncode == 0, f"{SCENARIO}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    folder = os.path.join(env.repo, "rocm-perf-optimize")
    ignore = os.path.join(folder, ".gitignore")
    check(os.path.exists(ignore) and "*" in open(ignore).read().splitlines(),
          f"{SCENARIO}: no .gitignore of '*' in {folder}")
    check(len(os.listdir(folder)) == 2, f"{SCENARIO}: {os.listdir(folder)}")
    after = sh("git", "status", "--porcelain", "--untracked-files=all", cwd=env.repo)
    check(after == status, f"{SCENARIO}: git status changed:\n{status}\n->\n{after}")
    shutil.rmtree(folder)
    env.done()


def build_run_commands():
    """--build and --run for the standalone form, checked like autotune's templates; a
    target.json whose commands are not is refused naming the field."""
    env = Env()
    env.run("--build", "hipcc -O3 '-DTAG=a b' -o {out} {src}", "--run", "{out} --size 64",
            "--auto-approve", app=None, expect=0)
    check(len(env.branches()) == 1, f"{SCENARIO}: branches {env.branches()}\n{env.out}")
    log = open(os.path.join(env.art, "original.build.log")).read()
    check("-DTAG=a b" in log or "'-DTAG=a b'" in log, f"{SCENARIO}: build log\n{log}")
    # The candidates' code objects are compiled with the build command's macros too.
    cand_logs = glob.glob(os.path.join(env.art, "candidates", "*", "build.log"))
    commands = [line for path in cand_logs for line in open(path).read().splitlines()
                if line.startswith("$ hipcc") and "--genco" in line]
    check(commands and all("-DTAG=a b" in c for c in commands),
          f"{SCENARIO}: code object builds {commands} in {cand_logs}")
    for args, words in ((["--build", "hipcc -o {out}"], "--build must hold {src}"),
                        (["--build", "hipcc -o {out} {src} {lib}"],
                         "unknown placeholder '{lib}'"),
                        (["--build", "hipcc -o {out} {src}", "--run", "./kern"],
                         "--run must hold {out}"),
                        (["--run", "{out} 'open"], "the single quote")):
        if "--run" not in args:
            args = args + ["--run", "{out}"]
        env.run(*args, "--check-args", app=None, expect=2)
        check(words in env.err, f"{SCENARIO}: {args}: {env.err}")
    build = os.path.join(env.tmp, "build")
    os.makedirs(os.path.join(build, "rocm-perf", "kern"))
    for field, cmd, words in (("build_command", ["hipcc", "-o", "{out}", "src.hip"],
                               "'build_command' must hold {src}"),
                              ("build_command", ["hipcc", "-o", "{out}", "{src}", "{libs}"],
                               "'build_command': unknown placeholder '{libs}'"),
                              ("codeobj_command", ["hipcc", "--genco", "{src}"],
                               "'codeobj_command' must hold {out}"),
                              ("test_command", ["{out}", "{size}"],
                               "'test_command': unknown placeholder '{size}'")):
        doc = {"schema_version": "1.0", "name": "kern", "sources": [env.source],
               "build_command": ["hipcc", "-o", "{out}", "{src}"], "test_command": ["{out}"]}
        doc[field] = cmd
        with open(os.path.join(build, "rocm-perf", "kern", "target.json"), "w") as f:
            json.dump(doc, f)
        p = subprocess.run([ROCM_PERF, "optimize", "--test", "kern", "--build-dir", build],
                           capture_output=True, text=True, env=env.environ())
        check(p.returncode == 2 and words in p.stderr and "target.json" in p.stderr,
              f"{SCENARIO}: {field} {cmd}: exit {p.returncode}: {p.stderr}")
    env.done()


def cmake_target():
    """rocm_perf_add_kernel_test(SOURCES ...) writes target.json; optimize --test reads it."""
    env = Env()
    with open(os.path.join(env.repo, "src", "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.25)\nproject(K LANGUAGES NONE)\n"
                "include(\"${RPL_CMAKE_DIR}/RocmPerfLab.cmake\")\n"
                "rocm_perf_add_kernel_test(kern SOURCES kern.hip ARCHITECTURES gfx90a "
                "KERNEL scale)\n")
    sh("git", "add", "src/CMakeLists.txt", cwd=env.repo)
    sh("git", "-c", "user.name=U", "-c", "user.email=u@x", "commit", "-q", "-m", "cmake",
       "--", "src/CMakeLists.txt", cwd=env.repo)
    env.before = env.state()
    build = os.path.join(env.tmp, "build")
    sh(CMAKE, "-S", os.path.join(env.repo, "src"), "-B", build,
       "-DRPL_CMAKE_DIR=" + os.path.join(SRC_DIR, "cmake"),
       "-DROCM_PERF_HIPCC=" + os.path.join(DOUBLES, "hipcc"), "-DROCM_PERF_EXECUTABLE=" + ROCM_PERF)
    target = os.path.join(build, "rocm-perf", "kern", "target.json")
    r = subprocess.run([sys.executable, VALIDATE_JSON, TARGET_SCHEMA, target], capture_output=True,
                       text=True)
    check(r.returncode == 0, f"{SCENARIO}: target.json: {r.stderr}")
    doc = json.load(open(target))
    check(doc["kernel"] == "scale" and doc["sources"] == [env.source] and
          "{src}" in doc["build_command"] and "--offload-arch={arch}" in doc["codeobj_command"],
          f"{SCENARIO}: target.json {doc}")
    argv = [ROCM_PERF, "optimize", "--test", "kern", "--build-dir", build, "--artifacts", env.art,
            "--rounds", "3", "--iterations", "5", "--auto-approve"]
    env.run_cli(argv, env.environ(), 300, expect=0)
    check("accepted" in env.out, f"{SCENARIO}: nothing accepted\n{env.out}\n{env.err}")
    check(len(env.branches()) == 1, f"{SCENARIO}: branches {env.branches()}")
    env.done()


def interactive():
    """On a terminal the command asks before committing: 'n' declines, 'y' commits."""
    import pty
    env = Env()
    for answer, branches in (("n", 0), ("y", 1)):
        master, slave = pty.openpty()
        os.write(master, (answer + "\n").encode())
        p = subprocess.run([ROCM_PERF, "optimize", env.source, "./kern", "--artifacts", env.art,
                            "--rounds", "3", "--iterations", "5", "--kernel", "scale"],
                           env=env.environ(), stdin=slave, capture_output=True, text=True,
                           timeout=300)
        os.close(slave)
        os.close(master)
        check(p.returncode == 0 and "[y/N]" in p.stderr,
              f"{SCENARIO}: answer {answer}: exit {p.returncode}, no question:\n{p.stderr}")
        check(len(env.branches()) == branches,
              f"{SCENARIO}: answer {answer}: branches {env.branches()}\n{p.stdout}")
        log = env.log()
        want = "not committed: declined" if answer == "n" else "rocm-perf/opt/scale/"
        check(log["candidates"] and (log["candidates"][0]["commit"] or "").startswith(want),
              f"{SCENARIO}: answer {answer}: commit {log['candidates'][0]['commit']}")
    env.done()


def sigint(step):
    """SIGINT to rocm-perf while `step` runs: nothing left, no branch, exit by SIGINT."""
    if step == "after-commit":
        # scale is accepted and committed; shift's candidate is interrupted in its replay.
        env = Env(header="// FAKE-IF-UNROLLED(scale): time=80\n"
                         "// FAKE-IF-UNROLLED(shift): sigint=replay")
    elif step in ("build", "replay", "test"):
        env = Env(header=f"// FAKE-IF-UNROLLED: sigint={step}")
    else:  # capture, profile: the original's own runs
        env = Env(header=f"// FAKE: sigint={step}")
    env.run("--auto-approve")
    check(env.rc == -signal.SIGINT, f"{SCENARIO}: exit {env.rc}, wanted death by SIGINT\n"
                                    f"{env.out}\n{env.err}")
    if step == "after-commit":
        check("committed" in env.out, f"{SCENARIO}: nothing was committed first:\n{env.out}")
    check(env.branches() == [], f"{SCENARIO}: branches left {env.branches()}")
    env.done()


def html_report():
    """report --html of the artifacts folder: every candidate with its decision, each step's
    evidence and the commit; tidy accepts the page and headless Chromium renders it."""
    env = Env(header="// FAKE-IF-UNROLLED(scale): time=80 app_ns=900000\n"
                     "// FAKE-IF-UNROLLED(shift): time=99")
    env.run("--auto-approve", expect=0)
    page = os.path.join(env.tmp, "opt.html")
    p = subprocess.run([ROCM_PERF, "report", "--html", page, env.art], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 0 and os.path.exists(page), f"{SCENARIO}: report --html: {p.stderr}")
    text = open(page).read() if os.path.exists(page) else ""
    log = env.log()
    for c in log["candidates"]:
        check(f'<th scope="row">{c["id"]}</th>' in text and f">{c['decision']}</span>" in text,
              f"{SCENARIO}: candidate {c['id']} and its decision missing")
        for step, s in c["steps"].items():
            check(html.escape(s["evidence"], quote=False).replace('"', "&quot;") in text,
                  f"{SCENARIO}: {c['id']}'s {step} evidence missing")
        if c["commit"]:
            check(html.escape(c["commit"], quote=False) in text, f"{SCENARIO}: commit {c['commit']} missing")
    check(any(c["commit"] and c["decision"] == "accepted" for c in log["candidates"]),
          f"{SCENARIO}: no accepted candidate with a commit to show")
    check("<script" not in text and "http://" not in text and "https://" not in text,
          f"{SCENARIO}: the page is not self-contained")
    tidy = subprocess.run([os.environ["RPL_TIDY"], "-errors", "-q", page], capture_output=True,
                          text=True)
    check(tidy.returncode == 0 and not tidy.stderr.strip(), f"{SCENARIO}: tidy: {tidy.stderr}")
    browser = [os.environ["RPL_CHROMIUM"], "--headless", "--no-sandbox", "--disable-gpu",
               f"--user-data-dir={os.path.join(env.tmp, 'chromium')}"]
    shot = os.path.join(env.tmp, "opt.png")
    subprocess.run(browser + [f"--screenshot={shot}", "--window-size=390,1200",
                              "file://" + page], capture_output=True, timeout=120)
    check(os.path.exists(shot) and os.path.getsize(shot) > 10000,
          f"{SCENARIO}: no phone-sized screenshot of the page")
    dom = subprocess.run(browser + ["--dump-dom", "file://" + page], capture_output=True,
                         text=True, timeout=120).stdout
    check('<th scope="col">evidence</th>' in dom and dom.count('<th scope="row">c') ==
          len(log["candidates"]), f"{SCENARIO}: the DOM lacks the candidates table")
    empty = os.path.join(env.tmp, "empty")
    os.makedirs(empty)
    p = subprocess.run([ROCM_PERF, "report", "--html", page, empty], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 2 and p.stderr.count("\n") == 1 and "optimize-log.json" in p.stderr,
          f"{SCENARIO}: a folder without a log: exit {p.returncode}, {p.stderr}")
    env.done()


def main():
    if SCENARIO.startswith("decision_"):
        decision(SCENARIO[len("decision_"):])
    elif SCENARIO.startswith("sigint_"):
        sigint(SCENARIO[len("sigint_"):].replace("_", "-"))
    else:
        {"rules_accepted": rules_accepted, "dry_run": dry_run, "dirty": dirty, "push": push,
         "test_target": test_target, "cmake_target": cmake_target,
         "interactive": interactive, "same": same, "slight": slight,
         "rank_gpu_time": rank_gpu_time, "app_noise": app_noise,
         "rank_recorded": rank_recorded, "default_artifacts": default_artifacts,
         "build_run_commands": build_run_commands,
         "html_report": html_report}[SCENARIO]()
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print(f"{SCENARIO}: ok")
    return 0


sys.exit(main())
