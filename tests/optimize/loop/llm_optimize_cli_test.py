#!/usr/bin/python3
"""rocm-perf llm-optimize through the real CLI, with test doubles only at process
boundaries: the model (tests/llm/standin_server.py on 127.0.0.1, scripted answers),
the compiler and the rocm-perf children that need a GPU (tests/optimize/doubles,
scripted by `// FAKE:` comments in the source).  Every scenario runs in a fresh git
repository; the user's HEAD, index and working tree must not change, and the API key
(a sentinel value) must appear in no file under the artifacts and the repository and in
nothing printed.

usage: llm_optimize_cli_test.py ROCM_PERF SOURCE_DIR SCENARIO
"""
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scratch_repo import ScratchRepo, check, failures, sh  # noqa: E402

ROCM_PERF, SRC_DIR, SCENARIO = sys.argv[1:4]
SRC_DIR = os.path.abspath(SRC_DIR)
HERE = os.path.join(SRC_DIR, "tests", "optimize", "loop")
SERVER = os.path.join(SRC_DIR, "tests", "llm", "standin_server.py")
VALIDATE_JSONL = os.path.join(SRC_DIR, "tests", "tools", "validate_jsonl.py")
TRANSCRIPT_SCHEMA = os.path.join(SRC_DIR, "docs", "schemas", "llm-transcript.schema.json")
SENTINEL = "rpl-SENTINEL-llm-loop-5c1d9e7a"

KERNELS = """\
// Kernels for the llm-optimize tests; `// FAKE:` comments script the compiler double.
// FAKE: time=100 frac_scale=0.8 frac_shift=0.15
extern "C" __global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = 2.0f * x[i];
}

extern "C" __global__ void shift(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] + 1.0f;
}
"""

class Server:
    def __init__(self, tmp, scenario):
        self.log = os.path.join(tmp, "requests.jsonl")
        port_file = os.path.join(tmp, "port")
        env = dict(os.environ, STANDIN_EXPECTED_KEY=SENTINEL)
        self.p = subprocess.Popen([sys.executable, SERVER, "--scripts",
                                   os.path.join(HERE, "scripts", scenario), "--port-file",
                                   port_file, "--log", self.log, "--time-limit", "200"], env=env)
        # A loaded machine can take seconds to start python: wait long, but stop at once
        # if the server died.
        deadline = time.time() + 60
        while (not os.path.exists(port_file) and time.time() < deadline
               and self.p.poll() is None):
            time.sleep(0.02)
        if not os.path.exists(port_file):
            self.p.kill()
            sys.exit(f"{SCENARIO}: the stand-in server wrote no port file "
                     f"(exit {self.p.wait()})")
        with open(port_file) as f:
            self.url = "http://127.0.0.1:%d/v1" % int(f.read())

    def stop(self):
        self.p.terminate()
        self.p.wait()

    def requests(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def prompt(self, n):
        """The last message of request n (from 1)."""
        reqs = self.requests()
        return reqs[n - 1]["body"]["messages"][-1]["content"] if len(reqs) >= n else ""


class Env(ScratchRepo):
    """The scratch repository (scratch_repo.py) with KERNELS as src/kern.hip, `fake` its
    directives, and a stand-in server answering from scripts/SCRIPT."""

    def __init__(self, script, fake="time=100 frac_scale=0.8 frac_shift=0.15"):
        super().__init__(SCENARIO, "rpl-llm-optimize-",
                         KERNELS.replace("time=100 frac_scale=0.8 frac_shift=0.15", fake))
        self.server = Server(self.tmp, script)

    def argv(self, *args):
        return [ROCM_PERF, "llm-optimize", self.source, "./kern --size 64", "--artifacts",
                self.art, "--rounds", "4", "--iterations", "5", "--seed", "7", "--base-url",
                self.server.url, "--model", "standin-model"] + list(args)

    def environ(self):
        # ROCM_PERF_LOG=debug: the most the tool writes, all of it scanned for the key.
        return super().environ(OPENAI_API_KEY=SENTINEL, ROCM_PERF_LOG="debug")

    def run(self, *args, expect=None):
        return self.run_cli(self.argv(*args), self.environ(), 280, expect)

    def junit_cases(self):
        path = os.path.join(self.art, "junit.xml")
        if not os.path.exists(path):
            check(False, f"{SCENARIO}: no junit.xml")
            return []
        out = []
        for case in ET.parse(path).getroot().iter("testcase"):
            f = case.find("failure")
            out.append(f.get("type") if f is not None else "accepted")
        return out

    def transcript_lines(self):
        path = os.path.join(self.art, "llm-transcript.jsonl")
        if not os.path.exists(path):
            return 0
        r = subprocess.run([sys.executable, VALIDATE_JSONL, TRANSCRIPT_SCHEMA, path],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"{SCENARIO}: the transcript does not follow its schema: "
                                 f"{r.stdout}{r.stderr}")
        with open(path) as f:
            return sum(1 for line in f if line.strip())

    def no_key_anywhere(self):
        """The sentinel key in no file of the artifacts, the repository (objects unpacked by
        git itself) and the scratch directory, and in nothing printed."""
        for where in [self.art, self.repo, self.scratch_tmp]:
            for root, _, files in os.walk(where):
                for name in files:
                    with open(os.path.join(root, name), "rb") as f:
                        check(SENTINEL.encode() not in f.read(),
                              f"{SCENARIO}: the key is in {os.path.join(root, name)}")
        every = sh("git", "log", "--all", "-p", "--format=%H%n%B", cwd=self.repo)
        check(SENTINEL not in every, f"{SCENARIO}: the key is in the repository's history")
        check(SENTINEL not in self.out + self.err, f"{SCENARIO}: the key was printed")
        for r in self.server.requests():
            check(r.get("auth") == "match", f"{SCENARIO}: request {r.get('n')} auth {r.get('auth')}")

    def done(self):
        self.server.stop()
        super().done()
        if failures:
            print(f"--- stdout\n{self.out}\n--- stderr\n{self.err[-6000:]}")


def expect_in(text, needle, what):
    check(needle in text, f"{SCENARIO}: {what} lacks {needle!r}:\n{text[:3000]}")


# ---- scenarios ---------------------------------------------------------------------------


def six():
    """The six answers: only the faster one is committed; every verdict in the JUnit
    report; every failure's feedback in the next request."""
    env = Env("cli-six")
    env.run("--auto-approve", "--max-iters", "5", expect=0)
    cases = env.junit_cases()
    check(cases == ["build", "not-significant", "signature", "wrong-result", "wrong-result",
                    "slower", "accepted"], f"{SCENARIO}: JUnit verdicts {cases}")
    br = env.branches()
    check(len(br) == 1 and br[0].startswith("rocm-perf/opt/scale/"), f"{SCENARIO}: branches {br}")
    if br:
        head = sh("git", "rev-parse", "HEAD", cwd=env.repo).strip()
        count = sh("git", "rev-list", "--count", f"{head}..{br[0]}", cwd=env.repo).strip()
        check(count == "1", f"{SCENARIO}: {count} commits on the branch, wanted 1")
        diff = sh("git", "diff", head, br[0], cwd=env.repo)
        expect_in(diff, "+extern \"C\" __global__ void scale(float *__restrict__ x, int n)",
                  "the commit")
        check("shift" not in "".join(l for l in diff.splitlines() if l.startswith(("+", "-"))
                                     and not l.startswith(("+++", "---"))),
              f"{SCENARIO}: the commit touches more than scale:\n{diff}")
        msg = sh("git", "log", "-1", "--format=%B", br[0], cwd=env.repo)
        expect_in(msg, "Rocm-Perf-Model: standin-model", "the commit message")
        expect_in(msg, "Rocm-Perf-Iteration: 7", "the commit message")
        expect_in(msg, "restrict pointers", "the commit message")
    s = env.server
    check(len(s.requests()) == 7, f"{SCENARIO}: {len(s.requests())} requests, wanted 7")
    expect_in(s.prompt(1), "Make the kernel `scale` of `kern.hip` faster.", "prompt 1")
    expect_in(s.prompt(1), "scale: 80.0% of the application's critical path", "prompt 1")
    expect_in(s.prompt(1), "gfx90a (CDNA2). Wavefront size 64.", "prompt 1 (architecture)")
    expect_in(s.prompt(1), "Grid (1048576, 1, 1) blocks of (256, 1, 1) threads", "prompt 1")
    expect_in(s.prompt(1), "## Static resources and occupancy\n- registers per thread: 32 VGPRs, "
                           "16 SGPRs; spills 0\n", "prompt 1 (resources)")
    expect_in(s.prompt(2), "verdict `build`", "prompt 2 (repair)")
    expect_in(s.prompt(2), "use of undeclared identifier 'oops'", "prompt 2 (repair)")
    expect_in(s.prompt(3), "verdict `not-significant`", "prompt 3")
    expect_in(s.prompt(4), "verdict `signature`", "prompt 4")
    expect_in(s.prompt(4), "'float *' became 'double *'", "prompt 4")
    expect_in(s.prompt(5), "verdict `wrong-result`", "prompt 5")
    expect_in(s.prompt(6), "verdict `wrong-result`", "prompt 6")
    expect_in(s.prompt(7), "verdict `slower`", "prompt 7")
    expect_in(s.prompt(7), "Measured speedup over the current best", "prompt 7")
    expect_in(s.prompt(7), "- turn 2 (scale): not-significant", "prompt 7 (archive)")
    check(env.transcript_lines() == 7, f"{SCENARIO}: transcript lines")
    expect_in(env.out, "7 turns, 7 candidates, 1 accepted", "stdout")
    env.no_key_anywhere()
    env.done()


def shift():
    """Accepting scale's change makes shift dominant: the loop says so and retargets."""
    env = Env("cli-shift")
    env.run("--auto-approve", "--max-iters", "2", expect=0)
    expect_in(env.err, "dominance shift: shift now holds 60.0% of the critical path", "stderr")
    expect_in(env.err, "retargeting to shift", "stderr")
    expect_in(env.server.prompt(2), "Make the kernel `shift` of `kern.hip` faster.", "prompt 2")
    # The archive: the accepted change with the counter figures of before and after.
    expect_in(env.server.prompt(2), "- turn 1 (scale): accepted, speedup ", "prompt 2 (archive)")
    expect_in(env.server.prompt(2), "; counters: HBM bytes 1.229e+04 -> 1.229e+04, FLOPs 2048 -> "
                                    "2048, roofline time ns 12.29 -> 12.29; strategy:",
              "prompt 2 (archive)")
    check(env.junit_cases() == ["accepted", "accepted"], f"{SCENARIO}: {env.junit_cases()}")
    br = env.branches()
    check(len(br) == 1, f"{SCENARIO}: branches {br}")
    if br:
        head = sh("git", "rev-parse", "HEAD", cwd=env.repo).strip()
        subjects = sh("git", "log", "--format=%s", f"{head}..{br[0]}", cwd=env.repo).split("\n")
        check(subjects[0].startswith("perf(shift)") and subjects[1].startswith("perf(scale)"),
              f"{SCENARIO}: subjects {subjects}")
    expect_in(env.out, "retargeted 1 time", "stdout")
    env.no_key_anywhere()
    env.done()


def gpu_time():
    """No kernel on the critical path (copies hold all of it): the kernels are ranked by
    their share of GPU time, the run says so, and the prompt tells the model that basis."""
    env = Env("cli-shift", fake="time=100 frac_scale=0 frac_shift=0 gpu_scale=5000 "
                                "gpu_shift=1000")
    env.run("--auto-approve", "--max-iters", "1", expect=0)
    expect_in(env.err, "kernels ranked by their share of GPU time instead", "stderr")
    expect_in(env.server.prompt(1), "Make the kernel `scale` of `kern.hip` faster.", "prompt 1")
    expect_in(env.server.prompt(1), "- scale: 0.5% of the GPU's busy time (the target)",
              "prompt 1")
    check(env.junit_cases() == ["accepted"], f"{SCENARIO}: {env.junit_cases()}")
    env.done()


def errors():
    """429 (Retry-After), 500, 529, a garbage reply, a request past --llm-timeout: the run
    recovers from each.  The timeout is far from both a loaded machine's answer time and
    the scripted hang (120 s), so only the hang can pass it."""
    env = Env("cli-errors")
    env.run("--auto-approve", "--max-iters", "4", "--llm-timeout", "10", expect=0)
    check(len(env.server.requests()) == 9, f"{SCENARIO}: {len(env.server.requests())} requests")
    check(env.junit_cases() == ["not-significant", "slower", "accepted", "not-significant"],
          f"{SCENARIO}: {env.junit_cases()}")
    expect_in(env.server.prompt(7), "could not be used (bad_reply)", "the request after garbage")
    env.no_key_anywhere()
    env.done()


def auth():
    """401 ends the run cleanly: exit 3, the provider's message redacted, no branch."""
    env = Env("cli-auth")
    env.run("--auto-approve", expect=3)
    expect_in(env.err, "HTTP 401", "stderr")
    check(env.branches() == [], f"{SCENARIO}: branches {env.branches()}")
    expect_in(env.out, "llm-failed", "stdout")
    env.no_key_anywhere()
    env.done()


def budget():
    """--budget-tokens stops cleanly before the request that would pass it."""
    env = Env("cli-budget")
    env.run("--auto-approve", "--max-iters", "4", "--budget-tokens", "3000", expect=0)
    check(len(env.server.requests()) == 3, f"{SCENARIO}: {len(env.server.requests())} requests")
    expect_in(env.out, "budget: token budget spent: 3600 of 3000 tokens used", "stdout")
    env.done()


def sigint():
    """Ctrl-C while the model thinks: exit by SIGINT, the unfinished branch deleted, no
    scratch tree left, the reports complete up to the interrupted turn."""
    env = Env("cli-sigint")
    p = subprocess.Popen(env.argv("--auto-approve", "--max-iters", "3"), env=env.environ(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    deadline = time.time() + 120
    while len(env.server.requests()) < 2 and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    check(len(env.server.requests()) == 2, f"{SCENARIO}: the second request never came")
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    env.out, env.err = p.communicate(timeout=60)
    check(p.returncode == -signal.SIGINT, f"{SCENARIO}: exit {p.returncode}\n{env.err}")
    check(env.branches() == [], f"{SCENARIO}: branches left: {env.branches()}")
    check(env.junit_cases() == ["accepted"], f"{SCENARIO}: {env.junit_cases()}")
    env.done()


def contract():
    """Replies that break the output contract: no code, the kernel twice, an edit outside
    it.  Each is a `patch` verdict in the reports (the log follows its schema), the
    reason goes back as a repair turn, nothing is built or committed."""
    env = Env("cli-contract")
    env.run("--auto-approve", "--max-iters", "1", "--max-repairs", "2", expect=0)
    check(env.junit_cases() == ["patch", "patch", "patch"], f"{SCENARIO}: {env.junit_cases()}")
    env.log()  # checked against its schema
    expect_in(env.server.prompt(2), "verdict `patch`", "prompt 2")
    expect_in(env.server.prompt(2), "Reason: the reply has no fenced code block", "prompt 2")
    expect_in(env.server.prompt(3), "defines scale twice", "prompt 3")
    check(env.branches() == [], f"{SCENARIO}: branches {env.branches()}")
    for d in sorted(os.listdir(os.path.join(env.art, "candidates"))):
        with open(os.path.join(env.art, "candidates", d, "build.log")) as f:
            log = f.read()
        check(log.startswith("not built: rejected before the build (patch): "),
              f"{SCENARIO}: {d}/build.log: {log}")
    env.done()


def bad_prompt():
    """An unknown placeholder in --prompt-dir: exit 2 before any request."""
    env = Env("cli-budget")
    d = os.path.join(env.tmp, "prompts")
    os.makedirs(d)
    with open(os.path.join(d, "user.md"), "w") as f:
        f.write("Make {{kernel_name}} faster.\n\n{{rooflin}}\n")
    env.run("--prompt-dir", d, expect=2)
    expect_in(env.err, "user.md:3: unknown placeholder {{rooflin}}", "stderr")
    check(env.server.requests() == [], f"{SCENARIO}: requests were sent")
    env.done()


# ---- --analysis DIR: the facts of `rocm-perf analyze --out DIR` ---------------------------

from scratch_repo import VALIDATE_JSON  # noqa: E402

ROOFLINE_SCHEMA = os.path.join(SRC_DIR, "docs", "schemas", "roofline.schema.json")
ANALYSIS_SCHEMA = os.path.join(SRC_DIR, "docs", "schemas", "analysis.schema.json")


def analysis_dir(tmp):
    """An `analyze --out` folder that knows scale (memory-bound, with ATT), not shift; both
    files follow their schemas."""
    prec = {"fp16": 0, "bf16": 0, "fp32": 2.5e6, "fp64": 0, "fp8": 0}
    zero = dict.fromkeys(prec, 0)
    core = {"kernel": "scale", "time_ns": 8e6, "flops": 1e8, "bytes": 8e8,
            "arithmetic_intensity": 0.125, "gflops": 12.5, "gbps": 100.0, "bound": "memory",
            "roof_fraction": 0.0625, "bottleneck": "memory_bandwidth", "confidence": 0.8,
            "critical_path_fraction": 0.8, "headroom": 0.9375, "priority": 0.75}
    roofline = {"schema_version": "1.0", "units": "ns, FLOP, bytes, GFLOP/s, GB/s",
                "ceilings": [{"device": "MI210", "source": "product table: MI210",
                              "hbm_gbps": 1600.0, "l2_gbps": None, "l1_gbps": None,
                              "lds_gbps": None, "valu_gflops": dict(prec, fp32=22600.0),
                              "matrix_gflops": zero}],
                "kernels": [dict(core, mangled="scale", arch="gfx90a", device="MI210",
                                 dispatches=4, dispatches_with_counters=4, reason=None,
                                 per_dispatch=[], per_dispatch_truncated=False, roofline={
                                     "flops_by_precision": {"valu": dict(zero, fp32=1e8),
                                                            "matrix": zero},
                                     "flops_are_proxy": False, "hbm_read_bytes": 4e8,
                                     "hbm_write_bytes": 4e8, "l2_bytes": None,
                                     "l1_bytes": None, "lds_bytes": None,
                                     "counted_time_ns": 8e6, "peak_gflops": 22600.0,
                                     "peak_gbps": 1600.0, "ridge_point": 14.125,
                                     "bandwidth_fraction": 0.0625,
                                     "compute_fraction": 0.000553, "exceeds_roof": False,
                                     "ceilings_source": "product table: MI210", "clamps": 0,
                                     "clamp_notes": []})]}
    analysis = {"schema_version": "1.0", "critical_path_ns": 1e7,
                "att": {"dir": "att", "folders": 1, "unmatched": 0, "skipped": 0},
                "kernels": [dict(core, evidence=["HBM bandwidth at 6% of its roof, caches "
                                                 "missed"],
                                 scores={"memory_bandwidth": 0.8, "latency": 0.3,
                                         "under_occupied": 0, "divergence": 0, "compute": 0,
                                         "launch_overhead": 0},
                                 facts={"dispatches": 4, "mean_duration_ns": 2e6,
                                        "mean_gap_ns": None, "workgroups": 4096,
                                        "waves_per_workgroup": 4, "cu_count": 104,
                                        "max_waves_per_cu": 32, "occupancy": 0.5,
                                        "path_ns": 8e6},
                                 att={"instruction_mix": {"valu": 0.4, "salu": 0.1,
                                                          "vmem": 0.3, "smem": 0, "lds": 0,
                                                          "mfma": 0, "branch": 0,
                                                          "waitcnt": 0.2, "other": 0},
                                      "instructions": 9000, "exec_mask_fraction": 0.01,
                                      "stall_fraction": 0.6, "idle_fraction": 0.1,
                                      "ipc": 0.21, "mem_latency_cycles": 700,
                                      "hottest": [{"isa": "s_waitcnt vmcnt(0)",
                                                   "source": "kern.hip:6", "hits": 900,
                                                   "latency_cycles": 40000,
                                                   "stall_cycles": 36000,
                                                   "latency_fraction": 0.5}]})],
                "priorities": [{"kernel": "scale", "priority": 0.75, "headroom": 0.9375,
                                "critical_path_fraction": 0.8,
                                "bottleneck": "memory_bandwidth"}]}
    d = os.path.join(tmp, "analysis")
    os.makedirs(d)
    for name, doc, schema in [("roofline.json", roofline, ROOFLINE_SCHEMA),
                              ("analysis.json", analysis, ANALYSIS_SCHEMA)]:
        path = os.path.join(d, name)
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
        r = subprocess.run([sys.executable, VALIDATE_JSON, schema, path], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"{SCENARIO}: the test's {name} breaks its schema: "
                                 f"{r.stdout}{r.stderr}")
    return d


def analysis():
    """--analysis: scale's roofline, bottleneck and ATT in its prompt; after the dominance
    shift, shift (not in the analysis) gets "Not available." and the run says so once."""
    env = Env("cli-shift")
    env.run("--auto-approve", "--max-iters", "2", "--analysis", analysis_dir(env.tmp), expect=0)
    p1, p2 = env.server.prompt(1), env.server.prompt(2)
    expect_in(p1, "## Roofline\nMeasured on the original kernel (the version below) by "
                  "`rocm-perf analyze`.\n", "prompt 1")
    expect_in(p1, "- arithmetic intensity 0.125 FLOP/byte (the ridge point is at 14.1)\n",
              "prompt 1")
    expect_in(p1, "- achieved 12.5 GFLOP/s and 100.0 GB/s (HBM)\n", "prompt 1")
    expect_in(p1, "- memory-bound: the HBM bandwidth roof of 1600.0 GB/s binds; the kernel "
                  "reaches 6.2% of it\n", "prompt 1")
    expect_in(p1, "- memory bandwidth (confidence 0.80)\n- evidence: HBM bandwidth at 6% of "
                  "its roof, caches missed\n", "prompt 1 (bottleneck)")
    expect_in(p1, "## Instruction trace (ATT)\nMeasured on the original kernel", "prompt 1")
    expect_in(p1, "- instruction mix of the traced waves: valu 40.0%, vmem 30.0%, waitcnt "
                  "20.0%, salu 10.0%\n", "prompt 1 (ATT)")
    expect_in(p1, "- the instructions of the most latency cycles:\n  - `s_waitcnt vmcnt(0)` "
                  "(kern.hip:6): 50.0% of the latency cycles, 90% of them stalls, 900 "
                  "executions\n", "prompt 1 (ATT)")
    expect_in(p2, "Make the kernel `shift` of `kern.hip` faster.", "prompt 2")
    # shift is not in the analysis: the pipeline's own counter pass gives its facts.
    for section in ["Roofline", "Bottleneck"]:
        expect_in(p2, f"## {section}\nMeasured on the version below by a counter pass over the "
                      "replay of the captured dispatch.\n", "prompt 2 (shift is not analysed)")
    said = env.err.count("has no kernel shift")
    check(said == 1, f"{SCENARIO}: the missing analysis of shift said {said} times\n{env.err}")
    check("has no kernel scale" not in env.err, f"{SCENARIO}: scale said missing\n{env.err}")
    env.done()


def analysis_pinned():
    """--kernel scale --analysis: after scale's change is accepted, its facts say they were
    measured on the original kernel, before that change."""
    env = Env("cli-shift")
    env.run("--auto-approve", "--max-iters", "2", "--max-repairs", "0", "--kernel", "scale",
            "--analysis", analysis_dir(env.tmp), expect=0)
    expect_in(env.server.prompt(1), "Measured on the original kernel (the version below)",
              "prompt 1")
    p2 = env.server.prompt(2)
    expect_in(p2, "Make the kernel `scale` of `kern.hip` faster.", "prompt 2")
    expect_in(p2, "## Roofline\nMeasured on the original kernel by `rocm-perf analyze`, "
                  "before the 1 accepted change of this run: the version below may behave "
                  "differently.\n", "prompt 2")
    expect_in(p2, "- memory-bound: the HBM bandwidth roof", "prompt 2")
    env.done()


def facts_default():
    """Without --analysis: static resources from the code object, roofline and bottleneck
    from the counter pass over the replay of the captured dispatch, the physical floor;
    nothing "Not available" that the doubles can give."""
    env = Env("cli-shift")
    env.run("--auto-approve", "--max-iters", "1", expect=0)
    p1 = env.server.prompt(1)
    expect_in(p1, "## Static resources and occupancy\n- registers per thread: 32 VGPRs, 16 "
                  "SGPRs; spills 0\n- LDS/shared per block: 0 bytes", "prompt 1")
    expect_in(p1, "- occupancy: 8 waves_per_simd at block size 256, limited by", "prompt 1")
    origin = "Measured on the version below by a counter pass over the replay of the " \
             "captured dispatch.\n"
    expect_in(p1, "## Roofline\n" + origin, "prompt 1")
    expect_in(p1, "- arithmetic intensity 0.167 FLOP/byte (the ridge point is at 10)\n",
              "prompt 1 (roofline)")
    expect_in(p1, "- memory-bound: the HBM bandwidth roof of 1000.0 GB/s binds", "prompt 1")
    expect_in(p1, "- physical floor of this dispatch: 4 ns (the 4096 bytes it changes at 1000 "
                  "GB/s, its FLOPs at 10000 GFLOP/s); at the roof with the bytes it moves now: "
                  "12 ns", "prompt 1 (floor)")
    expect_in(p1, "## Bottleneck\n" + origin + "- memory bandwidth (confidence 0.80)\n",
              "prompt 1 (bottleneck)")
    for section in ["Static resources and occupancy", "Roofline", "Bottleneck"]:
        check(f"## {section}\nNot available" not in p1, f"{SCENARIO}: {section} not available")
    expect_in(p1, "## Instruction trace (ATT)\nNot available: the counter pass recorded no "
                  "thread trace.\n", "prompt 1 (ATT)")
    with open(os.path.join(env.art, "optimize-log.json")) as f:
        facts = json.load(f)["snapshots"][0]["facts"]
    check(facts["floor_ns"] == 4.096 and facts["hbm_bytes"] == 12288 and facts["flops"] == 2048,
          f"{SCENARIO}: optimize-log.json facts {facts}")
    env.done()


def facts_unavailable():
    """A counter pass that fails: the prompt says why, and the run goes on without a floor."""
    env = Env("cli-budget", fake="time=100 frac_scale=0.8 frac_shift=0.15 counters=fail")
    env.run("--max-iters", "1", expect=0)
    p1 = env.server.prompt(1)
    for section in ["Roofline", "Bottleneck"]:
        expect_in(p1, f"## {section}\nNot available: the counter pass (`rocm-perf profile` over "
                      "the replay) failed: rocm-perf: the counter run failed.\n", "prompt 1")
    expect_in(p1, "- registers per thread: 32 VGPRs", "prompt 1 (resources)")
    env.done()


def shapes():
    """Three distinct dispatches: an answer that hard-codes the captured n is wrong-result on
    shape 2 (named); one the program's own check fails at --verify-run's size is wrong-result;
    the honest one is accepted."""
    env = Env("cli-shapes",
              fake="time=100 frac_scale=0.8 frac_shift=0.15 sizes=1048576,1048576,4096,65536")
    env.run("--auto-approve", "--max-iters", "3", "--max-repairs", "0", "--kernel", "scale",
            "--verify-run", "--size 4096", "--verify-run", "--size 7", expect=0)
    cases = env.junit_cases()
    check(cases == ["wrong-result", "wrong-result", "accepted"], f"{SCENARIO}: verdicts {cases}")
    s = env.server
    expect_in(s.prompt(1), "- shape 1: grid (1048576, 1, 1) x block (256, 1, 1); param 2 (int) = "
                           "1048576 (timed)\n- shape 2: grid (4096, 1, 1) x block (256, 1, 1); "
                           "param 2 (int) = 4096\n- shape 3: grid (65536, 1, 1)", "prompt 1")
    expect_in(s.prompt(2), "verdict `wrong-result`", "prompt 2")
    expect_in(s.prompt(2), "on shape 2 of 3 (grid (4096, 1, 1) x block (256, 1, 1); param 2 "
                           "(int) = 4096), not the one timed: wrong result", "prompt 2")
    expect_in(s.prompt(2), "the kernel must be correct at every size", "prompt 2")
    expect_in(s.prompt(3), "the program's own check failed with --verify-run \"--size 4096\" "
                           "(non-zero exit): check failed at size 4096", "prompt 3")
    with open(os.path.join(env.art, "optimize-log.json")) as f:
        log = json.load(f)
    got = [x["shape"] for x in log["snapshots"][0]["shapes"]]
    check(len(got) == 3 and got[2].endswith("param 2 (int) = 65536"), f"{SCENARIO}: shapes {got}")
    ok = log["candidates"][2]
    expect_in(ok["steps"]["replay"]["evidence"], "the same on 2 other shapes", "replay evidence")
    expect_in(ok["steps"]["test"]["evidence"], "2 --verify-run sizes passed", "test evidence")
    env.done()


def shapes_env():
    """A dispatch the original does not replay on is not kept as a shape (said); a shape the
    candidate's replay cannot run on is left unchecked (said), not the end of the run."""
    env = Env("cli-shapes-env", fake="time=100 frac_scale=0.8 frac_shift=0.15 "
                                     "sizes=1048576,4096,65536 env_fail_n=65536")
    env.run("--auto-approve", "--max-iters", "1", "--kernel", "scale", expect=0)
    check(env.junit_cases() == ["accepted"], f"{SCENARIO}: verdicts {env.junit_cases()}")
    expect_in(env.err, "scale: dispatch 2 is not used as another shape: the original does not "
                       "replay on it (", "stderr")
    expect_in(env.err, "shape 2 not checked: the replay failed (exit status 3): rocm-perf: "
                       "reservation failed", "stderr")
    with open(os.path.join(env.art, "optimize-log.json")) as f:
        log = json.load(f)
    check(len(log["snapshots"][0]["shapes"]) == 2, f"{SCENARIO}: {log['snapshots'][0]['shapes']}")
    expect_in(log["candidates"][0]["steps"]["replay"]["evidence"], "; the same on 0 of 1 other "
              "shapes (the replay could not run on the rest)", "replay evidence")
    env.done()


def shapes_fault():
    """An answer that reads past its buffers on shape 2 faults there: the replay says so (exit
    1), and the verdict is wrong-result on shape 2, named, not an environment failure that
    leaves the shape unchecked."""
    env = Env("cli-shapes-fault",
              fake="time=100 frac_scale=0.8 frac_shift=0.15 sizes=1048576,4096")
    env.run("--auto-approve", "--max-iters", "2", "--max-repairs", "0", "--kernel", "scale",
            expect=0)
    cases = env.junit_cases()
    check(cases == ["wrong-result", "accepted"], f"{SCENARIO}: verdicts {cases}")
    expect_in(env.server.prompt(2), "on shape 2 of 2 (grid (4096, 1, 1) x block (256, 1, 1); "
              "param 2 (int) = 4096), not the one timed: the replay failed (exit status 1): "
              "rocm-perf: the replayed kernel failed on the device: the replayed kernel: an "
              "illegal memory access was encountered", "prompt 2")
    check("not checked" not in env.err, f"{SCENARIO}: a shape was left unchecked")
    env.done()


def impossible():
    """An answer timed below the physical floor (the timer double says 1 ns; the dispatch
    changes 4096 bytes at 1000 GB/s: 4.1 ns) is `impossible` with both numbers; the next,
    faster but possible, is accepted beside the roofline headroom it had."""
    env = Env("cli-impossible")
    env.run("--auto-approve", "--max-iters", "2", "--kernel", "scale", expect=0)
    cases = env.junit_cases()
    check(cases == ["impossible", "accepted"], f"{SCENARIO}: verdicts {cases}")
    p2 = env.server.prompt(2)
    expect_in(p2, "verdict `impossible`", "prompt 2")
    expect_in(p2, "is below the physical floor of 4 ns (4096 bytes the dispatch must write at "
                  "1000 GB/s, 2048 FLOP at 10000 GFLOP/s; margin 10%)", "prompt 2")
    with open(os.path.join(env.art, "optimize-log.json")) as f:
        c = json.load(f)["candidates"]
    check(c[0]["floor_ns"] == 4.096, f"{SCENARIO}: floor_ns {c[0]['floor_ns']}")
    h = c[1]["roofline_headroom"]
    check(h is not None and 8 < h < 8.4, f"{SCENARIO}: roofline_headroom {h}")
    expect_in(c[1]["message"], "headroom was 8.", "the accepted message")
    m = c[1]["metrics"]
    check(m.get("counter_hbm_bytes") == {"original": 12288, "candidate": 12288}
          and "roofline_ns" in m, f"{SCENARIO}: the counter figures side by side {m}")
    expect_in(c[1]["message"], "x at the roof with the bytes the reference moved, 24.", "the accepted message")
    env.done()


def analysis_bad():
    """A malformed analysis.json, a missing folder: exit 2 naming the file, no request."""
    env = Env("cli-budget")
    d = analysis_dir(env.tmp)
    with open(os.path.join(d, "analysis.json"), "w") as f:
        f.write('{"kernels": [{"kernel": "scale", "evidence": "not a list"}]}')
    env.run("--analysis", d, expect=2)
    expect_in(env.err, os.path.join(d, "analysis.json") + ": kernels[0].evidence must be an "
                       "array of strings", "stderr")
    said = [line for line in env.err.splitlines() if not line.startswith("rocm-perf: debug:")]
    check(len(said) == 1, f"{SCENARIO}: more than one line:\n{env.err}")
    with open(os.path.join(d, "roofline.json"), "w") as f:
        f.write('{"kernels": [')
    env.run("--analysis", d, expect=2)
    expect_in(env.err, os.path.join(d, "roofline.json") + ": malformed JSON", "stderr")
    env.run("--analysis", os.path.join(env.tmp, "nowhere"), expect=2)
    expect_in(env.err, "run 'rocm-perf analyze --out", "stderr")
    check(env.server.requests() == [], f"{SCENARIO}: requests were sent")
    env.done()


SCENARIOS = {f.__name__: f
             for f in [six, shift, errors, auth, budget, sigint, contract, bad_prompt,
                       gpu_time, analysis, analysis_pinned, facts_default, facts_unavailable,
                       analysis_bad, shapes, shapes_env, shapes_fault, impossible]}
SCENARIOS[SCENARIO]()
if failures:
    sys.exit(1)
print(f"{SCENARIO}: ok")
