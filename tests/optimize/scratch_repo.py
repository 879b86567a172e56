"""The scratch repository that the CLI tests of rocm-perf optimize (optimize_cli_test.py)
and llm-optimize (loop/llm_optimize_cli_test.py) run the real binary in, and the check
helpers they share.

A ScratchRepo is a fresh temporary directory: repo/, a git repository with src/kern.hip
and README committed, then README edited and, if asked, notes.txt staged (the user's
state, which must not change: hashed into `before`); art/, the artifacts; tmp/, TMPDIR of
the runs (rocm-perf's scratch trees, all of which must be gone at the end).  The runs see
the test doubles of tests/optimize/doubles: the compiler and the rocm-perf children that
need a GPU.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOUBLES = os.path.join(SRC_DIR, "tests", "optimize", "doubles")
VALIDATE_JSON = os.path.join(SRC_DIR, "tests", "tools", "validate_json.py")
LOG_SCHEMA = os.path.join(SRC_DIR, "docs", "schemas", "optimize-log.schema.json")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def sh(*args, cwd=None):
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


class ScratchRepo:
    def __init__(self, scenario, prefix, text, staged=False):
        self.scenario = scenario
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.repo = os.path.join(self.tmp, "repo")
        self.art = os.path.join(self.tmp, "art")
        self.scratch_tmp = os.path.join(self.tmp, "tmp")
        os.makedirs(os.path.join(self.repo, "src"))
        os.makedirs(self.scratch_tmp)
        self.source = os.path.join(self.repo, "src", "kern.hip")
        with open(self.source, "w") as f:
            f.write(text)
        with open(os.path.join(self.repo, "README"), "w") as f:
            f.write("user's file\n")
        git = ["git", "-c", "user.name=User", "-c", "user.email=user@example.com"]
        sh("git", "init", "-q", "-b", "main", cwd=self.repo)
        sh("git", "add", ".", cwd=self.repo)
        sh(*git, "commit", "-q", "-m", "kernels", cwd=self.repo)
        if staged:
            with open(os.path.join(self.repo, "notes.txt"), "w") as f:
                f.write("staged\n")
            sh("git", "add", "notes.txt", cwd=self.repo)
        with open(os.path.join(self.repo, "README"), "a") as f:
            f.write("edited, not staged\n")
        self.out, self.err, self.rc = "", "", None
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
                    h.update(os.path.relpath(path, self.repo).encode() + f.read())
        return h.hexdigest()

    def environ(self, **extra):
        """rocm-perf's environment: the doubles first in PATH and as ROCM_PERF_TOOL, TMPDIR
        the scratch directory, then `extra`."""
        env = dict(os.environ)
        env["PATH"] = DOUBLES + ":" + env["PATH"]
        env["ROCM_PERF_TOOL"] = os.path.join(DOUBLES, "fake-rocm-perf")
        env["TMPDIR"] = self.scratch_tmp
        env.update(extra)
        return env

    def run_cli(self, argv, env, timeout, expect=None):
        """One rocm-perf run without a terminal; its output and exit in out, err, rc."""
        p = subprocess.run(argv, env=env, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        self.out, self.err, self.rc = p.stdout, p.stderr, p.returncode
        if expect is not None:
            check(p.returncode == expect,
                  f"{self.scenario}: exit {p.returncode}, wanted {expect}\n{p.stdout}\n{p.stderr}")
        return p

    def branches(self):
        out = sh("git", "for-each-ref", "--format=%(refname:short)", "refs/heads/rocm-perf/",
                 cwd=self.repo)
        return out.split()

    def log(self):
        """optimize-log.json of the artifacts, checked against its schema."""
        path = os.path.join(self.art, "optimize-log.json")
        r = subprocess.run([sys.executable, VALIDATE_JSON, LOG_SCHEMA, path], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"{self.scenario}: optimize-log.json: {r.stdout}{r.stderr}")
        with open(path) as f:
            return json.load(f)

    def no_scratch_left(self):
        left = []
        for root, dirs, files in os.walk(self.scratch_tmp):
            left += [os.path.join(root, d) for d in dirs if d != "rocm-perf-scratch"] + files
        check(not left, f"{self.scenario}: left behind in the scratch directory: {left}")

    def done(self):
        """The user's state unchanged and no scratch tree left; the directory is kept for a
        look when a check failed."""
        check(self.state() == self.before,
              f"{self.scenario}: the user's HEAD, index or working tree changed")
        self.no_scratch_left()
        if not failures:
            shutil.rmtree(self.tmp)
