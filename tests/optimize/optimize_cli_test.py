#!/usr/bin/python3
"""rocm-perf optimize through the real CLI, with test doubles only at process
boundaries: the compiler (doubles/hipcc) and the rocm-perf children that need a GPU
(doubles/fake-rocm-perf: capture, replay, profile).  Every scenario runs in a fresh
git repository; the user's HEAD, index and working tree are hashed before and after
each and must not change.

usage: optimize_cli_test.py ROCM_PERF OPTCHECK SOURCE_DIR SCENARIO CMAKE
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROCM_PERF, OPTCHECK, SRC_DIR, SCENARIO, CMAKE = sys.argv[1:6]
TARGET_SCHEMA = os.path.join(SRC_DIR, "docs", "schemas", "target.schema.json")
HERE = os.path.join(SRC_DIR, "tests", "optimize")
DOUBLES = os.path.join(HERE, "doubles")
SCHEMA = os.path.join(SRC_DIR, "docs", "schemas", "optimize-log.schema.json")
VALIDATE = os.path.join(SRC_DIR, "tests", "tools", "validate_json.py")
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

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def sh(*args, cwd=None):
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


class Env:
    def __init__(self, header="// FAKE-IF-UNROLLED(scale): time=80 app_ns=900000",
                 scale_extra=""):
        self.tmp = tempfile.mkdtemp(prefix="rpl-optimize-")
        self.repo = os.path.join(self.tmp, "repo")
        self.art = os.path.join(self.tmp, "art")
        self.scratch_tmp = os.path.join(self.tmp, "tmp")
        os.makedirs(os.path.join(self.repo, "src"))
        os.makedirs(self.scratch_tmp)
        self.source = os.path.join(self.repo, "src", "kern.hip")
        with open(self.source, "w") as f:
            f.write(KERNELS.format(header=header, scale_extra=scale_extra))
        with open(os.path.join(self.repo, "README"), "w") as f:
            f.write("user's file\n")
        git = ["git", "-c", "user.name=User", "-c", "user.email=user@example.com"]
        sh("git", "init", "-q", "-b", "main", cwd=self.repo)
        sh("git", "add", ".", cwd=self.repo)
        sh(*git, "commit", "-q", "-m", "kernels", cwd=self.repo)
        # Something staged and something modified: the user's state to leave alone.
        with open(os.path.join(self.repo, "notes.txt"), "w") as f:
            f.write("staged\n")
        sh("git", "add", "notes.txt", cwd=self.repo)
        with open(os.path.join(self.repo, "README"), "a") as f:
            f.write("edited, not staged\n")
        self.before = self.state()

    def state(self):
        """HEAD, the index file and every working-tree file, hashed."""
        h = hashlib.sha256()
        for p in ["HEAD", "index"]:
            with open(os.path.join(self.repo, ".git", p), "rb") as f:
                h.update(p.encode() + f.read())
        h.update(sh("git", "rev-parse", "HEAD", cwd=self.repo).encode())
        for root, dirs, files in os.walk(self.repo):
            dirs[:] = sorted(d for d in dirs if d != ".git")
            for name in sorted(files):
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    h.update(path.encode() + f.read())
        return h.hexdigest()

    def run(self, *args, env_extra=None, expect=None, app="./kern --size 64"):
        env = dict(os.environ)
        env["PATH"] = DOUBLES + ":" + env["PATH"]
        env["ROCM_PERF_TOOL"] = os.path.join(DOUBLES, "fake-rocm-perf")
        env["TMPDIR"] = self.scratch_tmp
        env.update(env_extra or {})
        argv = [ROCM_PERF, "optimize", self.source, app, "--artifacts", self.art,
                "--rounds", "4", "--iterations", "5", "--seed", "7"] + list(args)
        p = subprocess.run(argv, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           timeout=300)
        self.out, self.err, self.rc = p.stdout, p.stderr, p.returncode
        if expect is not None:
            check(p.returncode == expect,
                  f"{SCENARIO}: exit {p.returncode}, wanted {expect}\n{p.stdout}\n{p.stderr}")
        return p

    def branches(self):
        out = sh("git", "for-each-ref", "--format=%(refname:short)", "refs/heads/rocm-perf/",
                 cwd=self.repo)
        return out.split()

    def junit(self):
        path = os.path.join(self.art, "junit.xml")
        r = subprocess.run(["xmllint", "--noout", "--schema", XSD, path], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"{SCENARIO}: junit.xml does not validate: {r.stderr}")
        return ET.parse(path).getroot()

    def log(self):
        path = os.path.join(self.art, "optimize-log.json")
        r = subprocess.run([sys.executable, VALIDATE, SCHEMA, path], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"{SCENARIO}: optimize-log.json: {r.stderr}")
        with open(path) as f:
            return json.load(f)

    def no_scratch_left(self):
        left = []
        for root, dirs, files in os.walk(self.scratch_tmp):
            left += [os.path.join(root, d) for d in dirs if d != "rocm-perf-scratch"] + files
        check(not left, f"{SCENARIO}: left behind in the scratch directory: {left}")

    def done(self):
        check(self.state() == self.before,
              f"{SCENARIO}: the user's HEAD, index or working tree changed")
        self.no_scratch_left()
        if not failures:
            shutil.rmtree(self.tmp)


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
              "(-" in info["subject"], f"{SCENARIO}: subject {info['subject']}")
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
        check([r["kernel"] for r in log["ranked"]] == ["scale", "shift", "blocked"],
              f"{SCENARIO}: ranking {log['ranked']}")
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
    "app_slower": ("time=70 app_ns=1200000", "slower", "whole-app critical path", []),
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
    e = dict(os.environ, PATH=DOUBLES + ":" + os.environ["PATH"], TMPDIR=env.scratch_tmp,
             ROCM_PERF_TOOL=os.path.join(DOUBLES, "fake-rocm-perf"))
    p = subprocess.run(argv, env=e, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    check(p.returncode == 0, f"{SCENARIO}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    check("test 2/2 fresh seeds passed" in json.dumps(env.log()),
          f"{SCENARIO}: the fresh seeds did not run")
    check(len(env.branches()) == 1, f"{SCENARIO}: branches {env.branches()}")
    p = subprocess.run(argv[:2] + ["--test", "nope", "--build-dir", build], capture_output=True,
                       text=True)
    check(p.returncode == 2 and "target.json" in p.stderr, f"{SCENARIO}: {p.stderr}")
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
    r = subprocess.run([sys.executable, VALIDATE, TARGET_SCHEMA, target], capture_output=True,
                       text=True)
    check(r.returncode == 0, f"{SCENARIO}: target.json: {r.stderr}")
    doc = json.load(open(target))
    check(doc["kernel"] == "scale" and doc["sources"] == [env.source] and
          "{src}" in doc["build_command"] and "--offload-arch={arch}" in doc["codeobj_command"],
          f"{SCENARIO}: target.json {doc}")
    argv = [ROCM_PERF, "optimize", "--test", "kern", "--build-dir", build, "--artifacts", env.art,
            "--rounds", "3", "--iterations", "5", "--auto-approve"]
    e = dict(os.environ, PATH=DOUBLES + ":" + os.environ["PATH"], TMPDIR=env.scratch_tmp,
             ROCM_PERF_TOOL=os.path.join(DOUBLES, "fake-rocm-perf"))
    p = subprocess.run(argv, env=e, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    check(p.returncode == 0 and "accepted" in p.stdout,
          f"{SCENARIO}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    check(len(env.branches()) == 1, f"{SCENARIO}: branches {env.branches()}")
    env.done()


def interactive():
    """On a terminal the command asks before committing: 'n' declines, 'y' commits."""
    import pty
    env = Env()
    for answer, branches in (("n", 0), ("y", 1)):
        master, slave = pty.openpty()
        os.write(master, (answer + "\n").encode())
        e = dict(os.environ, PATH=DOUBLES + ":" + os.environ["PATH"], TMPDIR=env.scratch_tmp,
                 ROCM_PERF_TOOL=os.path.join(DOUBLES, "fake-rocm-perf"))
        p = subprocess.run([ROCM_PERF, "optimize", env.source, "./kern", "--artifacts", env.art,
                            "--rounds", "3", "--iterations", "5", "--kernel", "scale"],
                           env=e, stdin=slave, capture_output=True, text=True, timeout=300)
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


def main():
    if SCENARIO.startswith("decision_"):
        decision(SCENARIO[len("decision_"):])
    elif SCENARIO.startswith("sigint_"):
        sigint(SCENARIO[len("sigint_"):].replace("_", "-"))
    else:
        {"rules_accepted": rules_accepted, "dry_run": dry_run, "dirty": dirty, "push": push,
         "test_target": test_target, "cmake_target": cmake_target,
         "interactive": interactive}[SCENARIO]()
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print(f"{SCENARIO}: ok")
    return 0


sys.exit(main())
