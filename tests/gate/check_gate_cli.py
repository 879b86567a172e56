#!/usr/bin/python3
"""CLI tests of `rocm-perf gate`, `rocm-perf baseline` and `rocm-perf report --suite`.

usage: check_gate_cli.py --rocm-perf BIN --fixture BIN --fixtures DIR --xsd XSD
                         --schemas DIR --validate SCRIPT --workdir DIR [--hipcc HIPCC] CASE

Each CASE runs in a fresh folder below --workdir and checks exit codes, the
messages people read, the reports (JUnit validated with xmllint against
--xsd, JSON against docs/schemas) and the baseline files.
"""
import argparse
import hashlib
import json
import os
import resource
import shutil
import socket
import subprocess
import sys

A = None  # parsed arguments


def run(*cmd, env=None, expect=None):
    e = dict(os.environ)
    e.pop("ROCM_PERF_UPDATE_BASELINES", None)
    if env:
        e.update(env)
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=e)
    if expect is not None and p.returncode != expect:
        sys.exit(f"FAIL: exit {p.returncode}, expected {expect}: {' '.join(map(str, cmd))}\n"
                 f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def check(cond, what, p=None):
    if not cond:
        extra = f"\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}" if p else ""
        sys.exit(f"FAIL: {what}{extra}")
    print(f"ok: {what}")


def xsd_valid(path):
    p = subprocess.run(["xmllint", "--noout", "--schema", A.xsd, path],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"{path} validates against junit.xsd", p)


def schema_valid(schema, path):
    p = subprocess.run([sys.executable, A.validate, os.path.join(A.schemas, schema), path],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"{path} validates against {schema}", p)


def db(name):
    out = os.path.abspath(name + ".db")
    if not os.path.exists(out):
        run(A.fixture, os.path.join(A.fixtures, name + ".json"), out, expect=0)
    return out


def gate(*args, **kw):
    return run(A.rocm_perf, "gate", "--test", "gemm", "--baseline-dir", "bl", *args, **kw)


def update(*args, **kw):
    return run(A.rocm_perf, "baseline", "update", "--test", "gemm", "--baseline-dir", "bl", *args,
               **kw)


BL = os.path.join("bl", "gfx942", "gemm.json")


def case_traces():
    """Baseline from trace A: A' passes, a 10 % slower gemm fails with JUnit and message."""
    update("--trace", db("trace_a"), expect=0)
    schema_valid("baseline.schema.json", BL)
    p = gate("--trace", db("trace_a2"), "--junit", "a2.xml", "--json", "a2.json",
             "--markdown", "a2.md", expect=0)
    check("pass" in p.stdout.splitlines()[0], "trace A' passes", p)
    xsd_valid("a2.xml")
    schema_valid("gate-result.schema.json", "a2.json")
    check("<failure" not in open("a2.xml").read(), "no JUnit failure for A'")
    p = gate("--trace", db("trace_slow"), "--junit", "slow.xml", "--json", "slow.json",
             "--markdown", "slow.md", expect=1)
    out = p.stdout
    check("gemm(float*, float*, float*, int): median 100.44 us -> 109.78 us" in out,
          "the message names the kernel, both medians", p)
    check("slower beyond the tolerance" in out and "tolerance 3.00%" in out,
          "the message says why", p)
    check("cannot be measured again" in out, "trace input: no confirmation run, said so", p)
    xsd_valid("slow.xml")
    xml = open("slow.xml").read()
    check('<failure type="PerformanceRegression" message="gemm(float*, float*, float*, int): '
          'median 100.44 us -&gt; 109.78 us' in xml, "JUnit failure carries the numbers")
    check('name="gemm(float*, float*, float*, int).runtime"' in xml and
          'classname="rocm-perf.gemm"' in xml, "JUnit case names")
    check('name="median_ns.ci_low"' in xml and "[[ATTACHMENT|/" in xml,
          "case properties and absolute attachments")
    schema_valid("gate-result.schema.json", "slow.json")
    res = json.load(open("slow.json"))
    fails = [c for c in res["checks"] if c["verdict"] == "fail"]
    check(res["verdict"] == "fail" and len(fails) == 1 and fails[0]["family"] == "runtime" and
          fails[0]["runtime"]["ci_low"] > 1.03, "result JSON: one runtime fail, CI above 1+delta")
    check(fails[0]["runtime"]["change"] == "slower" and res["options"]["undecided"] == "warn",
          "result JSON: the change is 'slower', undecided counts as warn by default")
    for c in json.load(open("a2.json"))["checks"]:
        rt = c["runtime"]
        if rt:
            inside = rt["ci_low"] >= 0.97 and rt["ci_high"] <= 1.03
            check(rt["change"] == ("same" if inside else "undecided"),
                  f"A' {c['kernel']}: change {rt['change']} matches [{rt['ci_low']:.4f}, "
                  f"{rt['ci_high']:.4f}]")
    check('name="median_ns.change_class" value="slower"' in xml and
          'name="undecided" value="warn"' in xml, "JUnit: change class and undecided policy")
    md = open("slow.md").read()
    check("| kernel | metric | baseline | candidate | change | CI | verdict |" in md and
          "❌ fail (slower)" in md, "markdown table with the change")
    # The relu kernel alone passes the slow trace.
    gate("--trace", db("trace_slow"), "--kernel", "relu", expect=0)
    # A trace of another architecture is refused, never compared.
    p = gate("--trace", db("trace_a2"), "--arch", "gfx90a", expect=2)
    check("recorded on 'gfx942', not --arch 'gfx90a'" in p.stderr, "arch mismatch refused", p)


def case_corrupt():
    """A corrupt baseline: exit 2, a message naming it, the file byte-identical."""
    update("--trace", db("trace_a"), expect=0)
    for n, mutate in enumerate([
            lambda t: t[: len(t) // 2],                                   # cut
            lambda t: t.replace('"samples_ns":', '"samples_ns": "x", "y":', 1),  # wrong type
            lambda t: t.replace('"schema_version":\t"1.0"', '"schema_version":\t"9"'),
            lambda t: t.replace('"median_ns"', '"median"', 1).replace('[9', '[-9', 1),
            lambda t: "\x00\x01garbage"]):
        text = open(BL).read() if n == 0 else good
        if n == 0:
            good = text
        bad = mutate(good)
        with open(BL, "w") as f:
            f.write(bad)
        before = hashlib.sha256(open(BL, "rb").read()).hexdigest()
        p = gate("--trace", db("trace_a2"), expect=2)
        check(p.stderr.startswith("rocm-perf: ") and BL in p.stderr, f"corrupt #{n}: message", p)
        p = update("--trace", db("trace_a2"), expect=2)
        p = run(A.rocm_perf, "gate", "--test", "gemm", "--baseline-dir", "bl", "--trace",
                db("trace_a2"), env={"ROCM_PERF_UPDATE_BASELINES": "1"}, expect=2)
        after = hashlib.sha256(open(BL, "rb").read()).hexdigest()
        check(before == after, f"corrupt #{n}: file untouched by gate, update and env update")
        check(not [f for f in os.listdir(os.path.dirname(BL)) if ".tmp." in f],
              f"corrupt #{n}: no temporary file left")


def case_missing():
    """No baseline: FAIL with the create command; --allow-missing-baseline passes."""
    p = gate("--trace", db("trace_a"), "--junit", "m.xml", "--json", "m.json", expect=1)
    cmd = ("rocm-perf baseline update --test gemm --baseline-dir bl --arch gfx942 --warmup 1 "
           "--trace " + db("trace_a"))
    check(cmd in p.stderr and cmd in p.stdout, "the create command is printed", p)
    xsd_valid("m.xml")
    check('type="MissingBaseline"' in open("m.xml").read(), "JUnit failure for the missing file")
    schema_valid("gate-result.schema.json", "m.json")
    check(json.load(open("m.json"))["create_command"] == cmd, "JSON carries the command")
    p = gate("--trace", db("trace_a"), "--allow-missing-baseline", "--json", "m2.json", expect=0)
    check("allowed" in p.stderr, "allowed missing baseline says so", p)
    check(not os.path.exists(BL), "no baseline written by gate")
    # The printed command creates it, and then the gate passes.
    run(*([A.rocm_perf] + cmd.split()[1:]), expect=0)
    gate("--trace", db("trace_a"), expect=0)


def case_update_env():
    """ROCM_PERF_UPDATE_BASELINES=1: gate records instead of comparing; history grows."""
    env = {"ROCM_PERF_UPDATE_BASELINES": "1"}
    p = gate("--trace", db("trace_a"), env=env, expect=0)
    check("runtime section created" in p.stdout, "first update creates", p)
    p = gate("--trace", db("trace_slow"), env=env, expect=0)
    check("median 100.44 us -> 109.78 us (+9.29%)" in p.stdout, "update prints what changed", p)
    b = json.load(open(BL))
    g = [k for k in b["runtime"]["kernels"] if k["name"].startswith("gemm")][0]
    check(g["history_ns"] == [100440, 109775] and g["median_ns"] == 109775,
          "history keeps both medians, samples are the new run")
    # Ten more updates keep the last ten.
    for _ in range(10):
        gate("--trace", db("trace_a2"), env=env, expect=0)
    b = json.load(open(BL))
    g = [k for k in b["runtime"]["kernels"] if k["name"].startswith("gemm")][0]
    check(len(g["history_ns"]) == 10 and 100440 not in g["history_ns"], "history keeps K=10")
    schema_valid("baseline.schema.json", BL)
    # With a history, the widened rule applies and says so.
    p = gate("--trace", db("trace_slow"), "--json", "w.json", expect=1)
    check("widened by the run-to-run spread" in p.stdout, "stored-baseline mode", p)
    r = json.load(open("w.json"))
    rt = [c for c in r["checks"] if c["family"] == "runtime"][0]["runtime"]
    check(rt["method"] == "stored-baseline" and rt["history"] == 10, "method in JSON")
    # show and diff
    shutil.copy(BL, "old.json")
    gate("--trace", db("trace_slow"), env=env, expect=0)
    p = run(A.rocm_perf, "baseline", "show", BL, expect=0)
    check("test gemm on gfx942 (AMD Instinct MI300X)" in p.stdout and "history of 10" in p.stdout,
          "baseline show", p)
    p = run(A.rocm_perf, "baseline", "diff", "old.json", BL, expect=0)
    check("gemm(float*, float*, float*, int): median" in p.stdout and "->" in p.stdout,
          "baseline diff", p)
    p = run(A.rocm_perf, "baseline", "diff", BL, BL, expect=0)
    check("no differences" in p.stdout, "diff of a file with itself", p)


def case_counters():
    """FLOPs and DRAM bytes per dispatch from counters: growth fails; a new bottleneck warns."""
    sx = [A.rocm_perf, "gate", "--test", "sx", "--baseline-dir", "bl"]
    run(A.rocm_perf, "baseline", "update", "--test", "sx", "--baseline-dir", "bl", "--trace",
        db("counters_a"), expect=0)
    path = os.path.join("bl", "sm_90", "sx.json")
    schema_valid("baseline.schema.json", path)
    b = json.load(open(path))
    k = b["runtime"]["kernels"][0]
    check(k["counters"] == {"dram_bytes": 1.5e8, "flops": 2.2e9} and b["driver"] == "13000" and
          b["device"] == "NVIDIA H200", "counters per dispatch, device and driver recorded")
    p = run(*sx, "--trace", db("counters_more"), "--junit", "c.xml", expect=1)
    check("dram_bytes per dispatch 1.5e+08 -> 1.8e+08 (+20.00%, tolerance 3.00%)" in p.stdout,
          "DRAM growth fails with the numbers", p)
    check("flops" not in p.stdout, "unchanged FLOPs pass quietly", p)
    xsd_valid("c.xml")
    check('name="saxpy(int, float, float const*, float*).counters"' in open("c.xml").read(),
          "JUnit case for the counters family")
    # The classifier's class is recorded; a different one in the baseline gives a WARN.
    check(k["bottleneck"] is not None, "bottleneck recorded")
    k["bottleneck"] = "compute" if k["bottleneck"] != "compute" else "latency"
    json.dump(b, open(path, "w"))
    p = run(*sx, "--trace", db("counters_a"), expect=0)
    check("warn" in p.stdout.splitlines()[0] and "bottleneck class changed from" in p.stdout,
          "changed bottleneck class warns, exit 0", p)


def compile_kernel(variant, out):
    run(A.hipcc, "--offload-arch=gfx90a", "-O3", "--genco", f"-DGATE_VARIANT={variant}",
        os.path.join(A.kernels, "stencil.hip"), "-o", out, expect=0)


def case_static():
    """Static gate: a compiled kernel passes itself; a variant with more VGPRs and LDS fails."""
    if not A.hipcc:
        sys.exit("FAIL: the static case needs --hipcc")
    compile_kernel(0, "st0.co")
    compile_kernel(1, "st1.co")
    base = [A.rocm_perf, "gate", "--test", "stencil", "--baseline-dir", "bl"]
    run(A.rocm_perf, "baseline", "update", "--test", "stencil", "--baseline-dir", "bl",
        "--static", "st0.co", expect=0)
    path = os.path.join("bl", "gfx90a", "stencil.json")
    schema_valid("baseline.schema.json", path)
    p = run(*base, "--static", "st0.co", "--junit", "s0.xml", expect=0)
    xsd_valid("s0.xml")
    p = run(*base, "--static", "st1.co", "--junit", "s1.xml", "--json", "s1.json", expect=1)
    check("_Z7stencilPKfPfi: vgpr grew from 14 to 51" in p.stdout, "message names vgpr, old, new",
          p)
    check("_Z7stencilPKfPfi: lds_bytes grew from 4096 to 16384" in p.stdout,
          "message names lds_bytes, old, new", p)
    xsd_valid("s1.xml")
    schema_valid("gate-result.schema.json", "s1.json")
    xml = open("s1.xml").read()
    check(xml.count("<failure ") == 2, "two failing JUnit cases: registers and lds")
    # --kernel narrows the static gate: no kernel matching is an input error.
    p = run(*base, "--static", "st1.co", "--kernel", "nomatch", expect=2)
    check("no kernel of the code matches --kernel 'nomatch'" in p.stderr, "static --kernel", p)
    # A baseline made for --block 128 is compared at 128 when the gate names no block.
    run(A.rocm_perf, "baseline", "update", "--test", "st128", "--baseline-dir", "bl",
        "--static", "st0.co", "--block", "128", expect=0)
    run(A.rocm_perf, "gate", "--test", "st128", "--baseline-dir", "bl", "--static", "st0.co",
        "--json", "b128.json", expect=0)
    occ = [c for c in json.load(open("b128.json"))["checks"] if c["family"] == "occupancy"]
    check(len(occ) == 1 and "at block 128" in occ[0]["message"], "occupancy at the baseline's block")
    check(json.load(open(os.path.join("bl", "gfx90a", "st128.json")))["toolkit"].startswith("LLVM "),
          "toolkit recorded from the code object")
    # Updating the static section keeps the runtime section, and the reverse.
    update("--trace", db("trace_a"), "--arch", "gfx942", expect=0)
    rt_path = BL
    before = json.load(open(rt_path))["runtime"]
    run(A.rocm_perf, "baseline", "update", "--test", "gemm", "--baseline-dir", "bl", "--arch",
        "gfx90a", "--static", "st0.co", expect=0)
    p = run(A.rocm_perf, "baseline", "update", "--test", "stencil", "--baseline-dir", "bl",
            "--static", "st1.co", expect=0)
    check("vgpr 14 -> 51" in p.stdout, "static update prints what changed", p)
    check(json.load(open(rt_path))["runtime"] == before, "other file untouched")
    run(A.fixture, os.path.join(A.fixtures, "trace_a.json"), "a90.db", "--sql",
        "UPDATE rocpd_info_agent{{uuid}} SET name = 'gfx90a' WHERE type = 'GPU'", expect=0)
    run(A.rocm_perf, "baseline", "update", "--test", "stencil", "--baseline-dir", "bl",
        "--trace", "a90.db", expect=0)
    both = json.load(open(path))
    check(both["static"]["kernels"][0]["vgpr"] == 51 and both["runtime"] is not None,
          "runtime update kept the static section")


def result_file(name, verdict_fail, p_value, folder):
    """A gate result as rocm-perf writes it, with one runtime check."""
    os.makedirs(folder, exist_ok=True)
    doc = {
        "schema_version": "1.0", "tool": {"name": "rocm-perf", "version": "x"},
        "test": name, "arch": "gfx942", "device": None, "mode": "runtime", "input": "trace",
        "verdict": "fail" if verdict_fail else "pass", "baseline": "bl/gfx942/" + name + ".json",
        "baseline_missing": False, "create_command": None,
        "options": {"tolerance": 0.03, "confidence": 0.95, "bootstrap": 2000, "seed": 1,
                    "warmup": 1, "repetitions": 30},
        "confirmed": False, "confirmation": None, "elapsed_s": 0.1,
        "checks": [{"kernel": "k", "family": "runtime", "metric": "median_ns",
                    "verdict": "fail" if verdict_fail else "pass", "baseline": 100.0,
                    "candidate": 110.0 if verdict_fail else 100.0,
                    "change": 0.1 if verdict_fail else 0.0,
                    "baseline_text": None, "candidate_text": None, "message": "k: m",
                    "runtime": {"method": "bootstrap-percentile", "log_ratio": 0.0953,
                                "ratio": 1.1, "ci_low": 1.04, "ci_high": 1.15, "se_boot": 0.01,
                                "sigma_run": 0, "history": 0, "p_value": p_value}}],
        "attachments": []}
    path = os.path.join(folder, name + ".json")
    json.dump(doc, open(path, "w"))
    schema_valid("gate-result.schema.json", path)


def case_suite():
    """report --suite: Holm over the results below a folder."""
    # A real result from the CLI plus written ones with known p-values.
    update("--trace", db("trace_a"), expect=0)
    os.makedirs("suite/sub", exist_ok=True)
    gate("--trace", db("trace_slow"), "--json", "suite/sub/real.json", expect=1)
    result_file("t_strong", True, 0.0004, "suite/a")   # survives Holm (0.0004 <= 0.05/4)
    result_file("t_weak", True, 0.03, "suite/b")       # fails alone, not across the suite
    result_file("t_pass", False, 0.9, "suite/b")
    with open("suite/other.json", "w") as f:
        f.write('{"schema_version": "1.0", "kernels": []}')  # not a gate result: skipped
    p = run(A.rocm_perf, "report", "--suite", "suite", "--markdown", "suite.md", "--junit",
            "suite.xml", expect=1)
    out = p.stdout
    check("Holm step-down over 5 runtime comparisons at family-wise alpha 0.05" in out,
          "states the correction and m", p)
    check("at most 0.05" in out and "1-(1-0.05)^5 = 0.226" in out,
          "states the family-wise false-alarm rate", p)
    check("  fail     t_strong" in out and "  warn     t_weak" in out and
          "  pass     t_pass" in out and "  fail     gemm" in out, "verdicts after Holm", p)
    check("1 FAIL not significant across the suite became WARN" in out, "downgrade counted", p)
    xsd_valid("suite.xml")
    check("rocm-perf suite: 2 fail of 4" in open("suite.md").read(), "suite markdown")
    # Without the strong ones, nothing fails.
    shutil.rmtree("suite/a")
    os.remove("suite/sub/real.json")
    p = run(A.rocm_perf, "report", "--suite", "suite", expect=0)
    check("0 fail" in p.stdout, "weak fail alone passes the suite", p)
    p = run(A.rocm_perf, "report", "--suite", "nowhere", expect=2)
    with open("suite/b/t_bad.json", "w") as f:
        f.write('{"schema_version": "1.0", "mode": "runtime", "verdict": "fail", "checks": [1]}')
    p = run(A.rocm_perf, "report", "--suite", "suite", expect=2)
    check("t_bad.json' is not a gate result" in p.stderr, "malformed result rejected", p)


def case_nothing_checked():
    """A gate that compares nothing fails with the reason; --skip-if-no-checks makes it a skip."""
    update("--trace", db("trace_a"), "--kernel", "relu", expect=0)
    # --kernel selects a kernel of the trace that the baseline does not have.
    p = gate("--trace", db("trace_a"), "--kernel", "gemm", "--junit", "n.xml", "--json", "n.json",
             expect=1)
    check("fail" in p.stdout.splitlines()[0] and "nothing checked: --kernel 'gemm' selects no "
          "kernel of baseline 'bl/gfx942/gemm.json' (it has 1)" in p.stdout, "says why", p)
    xsd_valid("n.xml")
    check('type="NothingChecked"' in open("n.xml").read(), "JUnit failure NothingChecked")
    schema_valid("gate-result.schema.json", "n.json")
    check(json.load(open("n.json"))["verdict"] == "fail", "JSON verdict fail")
    p = gate("--trace", db("trace_a"), "--kernel", "gemm", "--skip-if-no-checks", "--junit",
             "s.xml", "--json", "s.json", expect=77)
    check("skipped" in p.stdout.splitlines()[0], "skip said on the first line", p)
    xsd_valid("s.xml")
    xml = open("s.xml").read()
    check('skipped="1"' in xml and "<skipped message=" in xml and "<failure" not in xml,
          "JUnit shows a skipped case")
    schema_valid("gate-result.schema.json", "s.json")
    check(json.load(open("s.json"))["skipped"] is True, "JSON says skipped")
    os.makedirs("suite", exist_ok=True)
    shutil.copy("s.json", "suite/s.json")
    p = run(A.rocm_perf, "report", "--suite", "suite", "--junit", "suite.xml", expect=0)
    check("1 skipped (nothing checked)" in p.stdout and "  skipped  gemm" in p.stdout,
          "report --suite counts it as skipped", p)
    xsd_valid("suite.xml")
    check('skipped="1"' in open("suite.xml").read(), "suite JUnit keeps the skip")
    shutil.copy("n.json", "suite/n.json")
    run(A.rocm_perf, "report", "--suite", "suite", expect=1)
    # A baseline whose kernel list is empty.
    b = json.load(open(BL))
    b["runtime"]["kernels"] = []
    json.dump(b, open(BL, "w"))
    p = gate("--trace", db("trace_a"), expect=1)
    check("nothing checked: the runtime section of baseline 'bl/gfx942/gemm.json' lists no "
          "kernels" in p.stdout, "empty kernel list fails", p)
    gate("--trace", db("trace_a"), "--skip-if-no-checks", expect=77)
    # A gate that does check something is unaffected by the option.
    update("--trace", db("trace_a"), expect=0)
    gate("--trace", db("trace_a2"), "--skip-if-no-checks", expect=0)
    p = update("--trace", db("trace_a"), "--skip-if-no-checks", expect=2)
    check("not of 'baseline update'" in p.stderr, "a gate option only", p)


def case_values():
    """Baseline values that cannot be timings: exit 2 naming the field, the file untouched."""
    update("--trace", db("trace_a"), expect=0)
    good = open(BL).read()
    for what, field, mutate in (
            ("infinite median", "median_ns", lambda k: k.update(median_ns="INF")),
            ("negative median", "median_ns", lambda k: k.update(median_ns=-5)),
            ("string median", "median_ns is not a number", lambda k: k.update(median_ns="100")),
            ("sample 1e308", "samples_ns[2] is 1e+308",
             lambda k: k["samples_ns"].__setitem__(2, 1e308)),
            ("history 1e20", "history_ns[0] is 1e+20",
             lambda k: k.update(history_ns=[1e20]))):
        b = json.loads(good)
        mutate(b["runtime"]["kernels"][0])
        text = json.dumps(b).replace('"INF"', "1e999")  # JSON has no infinity; 1e999 parses as it
        with open(BL, "w") as f:
            f.write(text)
        before = hashlib.sha256(text.encode()).hexdigest()
        p = gate("--trace", db("trace_a2"), expect=2)
        check(p.stderr.count("\n") == 1 and "runtime.kernels[0]: " + field in p.stderr,
              f"{what}: one line naming the field", p)
        update("--trace", db("trace_a2"), expect=2)
        check(hashlib.sha256(open(BL, "rb").read()).hexdigest() == before,
              f"{what}: file untouched")


def case_lock():
    """Concurrent updates of one baseline keep every history entry; a held lock times out."""
    update("--trace", db("trace_a"), expect=0)
    env = dict(os.environ)
    env.pop("ROCM_PERF_UPDATE_BASELINES", None)
    procs = [subprocess.Popen([A.rocm_perf, "baseline", "update", "--test", "gemm",
                               "--baseline-dir", "bl", "--trace", db("trace_a2")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
             for _ in range(9)]
    codes = [p.wait() for p in procs]
    check(codes == [0] * 9, f"nine concurrent updates succeed ({codes})")
    b = json.load(open(BL))
    check(all(len(k["history_ns"]) == 10 for k in b["runtime"]["kernels"]),
          "1 + 9 updates: 10 history entries each, none lost")
    import fcntl
    fd = os.open(os.path.dirname(BL), os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    p = update("--trace", db("trace_a2"), env={"ROCM_PERF_LOCK_TIMEOUT": "0.3"}, expect=3)
    check(p.stderr.count("\n") == 1 and "is locked by another rocm-perf process" in p.stderr and
          "ROCM_PERF_LOCK_TIMEOUT" in p.stderr and BL in p.stderr, "lock timeout: one line", p)
    os.close(fd)
    update("--trace", db("trace_a2"), env={"ROCM_PERF_LOCK_TIMEOUT": "0.3"}, expect=0)


def limited(nbytes):
    """preexec_fn: a file-size limit of nbytes (SIGXFSZ on the way past it)."""
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))


def case_fslimit():
    """Past a file-size limit: exit 3 with one line, no temporary left, the old file kept;
    temporaries of writers that died are removed by the next write."""
    update("--trace", db("trace_a"), expect=0)
    before = open(BL, "rb").read()
    cmd = [A.rocm_perf, "baseline", "update", "--test", "gemm", "--baseline-dir", "bl",
           "--trace", db("trace_a2")]
    p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=limited(512))
    check(p.returncode == 3 and p.stderr.count("\n") == 1 and "File too large" in p.stderr,
          "baseline update past the limit: exit 3, one line", p)
    check(open(BL, "rb").read() == before, "the baseline is unchanged")
    temps = lambda d: [f for f in os.listdir(d) if ".tmp." in f]
    check(not temps(os.path.dirname(BL)), "no temporary left by the baseline update")
    a = db("trace_a")
    p = subprocess.run([A.rocm_perf, "analyze", a, "--out", "an"], capture_output=True,
                       text=True, preexec_fn=limited(2048))
    check(p.returncode == 3 and p.stderr.count("\n") == 1 and "File too large" in p.stderr,
          "analyze --out past the limit: exit 3, one line", p)
    check(not temps("an"), "no temporary left by analyze --out")
    # A writer killed mid-write (kill -9) leaves its temporary; the next write removes it,
    # and keeps one of a process that is still alive.
    dead = subprocess.Popen(["true"])
    dead.wait()
    host = socket.gethostname()
    stale = f"{BL}.tmp.{host}.{dead.pid}.0"
    live = f"{BL}.tmp.{host}.{os.getpid()}.0"
    for t in (stale, live):
        with open(t, "w") as f:
            f.write('{"half": ')
    update("--trace", db("trace_a2"), expect=0)
    check(not os.path.exists(stale), "the dead writer's temporary is removed")
    check(os.path.exists(live), "a live writer's temporary is kept")
    os.remove(live)


def case_huge_end():
    """A dispatch ending at INT64_MAX (the helper's, then a gated kernel's): analyze, baseline
    update and gate reject the trace with one line naming the dispatch, never a span of
    centuries or a negative total."""
    for which, pick in (("helper", "MIN"), ("kernel", "MAX")):
        out = f"huge_{which}.db"
        run(A.fixture, os.path.join(A.fixtures, "trace_a.json"), out, "--sql",
            'UPDATE rocpd_kernel_dispatch{{uuid}} SET "end" = 9223372036854775807 WHERE id = '
            f"(SELECT {pick}(id) FROM rocpd_kernel_dispatch{{{{uuid}}}})", expect=0)
        for args in ([], ["--include-helpers"], ["--json"], ["--out", "o"]):
            p = run(A.rocm_perf, "analyze", out, *args, expect=2)
            check(p.stderr.count("\n") == 1 and "lasts from" in p.stderr and
                  "9223372036854775807 ns, more than a day" in p.stderr and p.stdout == "",
                  f"{which}: analyze {' '.join(args)} rejects it in one line", p)
        check(not [f for f in os.listdir("o") if f.endswith(".json")] if os.path.isdir("o")
              else True, f"{which}: analyze --out wrote no half result")
        p = update("--trace", out, expect=2)
        check("more than a day" in p.stderr, f"{which}: baseline update rejects it", p)
        check(not os.path.exists("bl"), f"{which}: no baseline written")
    update("--trace", db("trace_a"), expect=0)
    p = gate("--trace", "huge_kernel.db", expect=2)
    check("more than a day" in p.stderr, "gate rejects it", p)


def fake_commit(i):
    return f"{i:04x}" + "c" * 36


def fake_history(path, kernel, levels, noise=0.01, seed=7, accepted_at=None):
    """Replace the history of baseline `path` with one entry per level (ns), fake commits."""
    import random
    rnd = random.Random(seed)
    doc = json.load(open(path))
    doc["history"] = [{"date": f"2026-01-{1 + i % 28:02d}T00:00:00Z", "commit": fake_commit(i),
                       "device": "MI300X", "driver": "6.8", "gpu_state": None,
                       "accepted": "new tiling" if i == accepted_at else None,
                       "medians_ns": {kernel: v * (1 + rnd.gauss(0, noise))}}
                      for i, v in enumerate(levels)]
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)


def case_trend():
    """History entries record the commit (libgit2); trend finds where a step began; accept
    records why; the gate names the commit where a regression began and warns of a drift."""
    repo = os.path.abspath("repo")
    os.makedirs(repo)
    run("git", "init", "-q", repo, expect=0)
    run("git", "-C", repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q",
        "--allow-empty", "-m", "one", expect=0)
    head = run("git", "-C", repo, "rev-parse", "HEAD", expect=0).stdout.strip()
    bl = os.path.join(repo, "bl")
    blf = os.path.join(bl, "gfx942", "gemm.json")
    run(A.rocm_perf, "baseline", "update", "--test", "gemm", "--baseline-dir", bl, "--trace",
        db("trace_a"), expect=0)
    schema_valid("baseline.schema.json", blf)
    entry = json.load(open(blf))["history"][0]
    check(entry["commit"] == head and entry["date"].endswith("Z") and entry["accepted"] is None
          and entry["gpu_state"] is None, "history entry: commit of the repository, date, no "
          "GPU state for a trace")
    gemm = "gemm(float*, float*, float*, int)"
    fake_history(blf, gemm, [100440.0] * 25 + [109780.0] * 15)
    p = run(A.rocm_perf, "baseline", "trend", "--test", "gemm", "--baseline-dir", bl, "--json",
            expect=0)
    with open("trend.json", "w") as f:
        f.write(p.stdout)
    schema_valid("trend.schema.json", "trend.json")
    k = [k for k in json.load(open("trend.json"))["kernels"] if k["name"] == gemm][0]
    cps = k["change_points"]
    check(len(cps) == 1 and abs(cps[0]["index"] - 25) <= 2 and cps[0]["direction"] == "slower"
          and cps[0]["material"] and cps[0]["commits"]["first_after"] == fake_commit(cps[0]["index"]),
          f"trend: one slower change point at entry 25 with its commit ({cps})")
    p = run(A.rocm_perf, "baseline", "trend", "--test", "gemm", "--baseline-dir", bl, "--kernel",
            "gemm", expect=0)
    check(f"entry {cps[0]['index']}: +" in p.stdout and fake_commit(cps[0]["index"])[:10] in p.stdout,
          "trend text names the entry and the commit", p)
    # The gate on the slower trace: the regression began at that change point.
    p = run(A.rocm_perf, "gate", "--test", "gemm", "--baseline-dir", bl, "--trace",
            db("trace_slow"), "--json", "g.json", expect=1)
    check(f"began at history entry {cps[0]['index']} (commit {fake_commit(cps[0]['index'])[:12]}"
          in p.stdout,
          "gate: the regression names where it began", p)
    schema_valid("gate-result.schema.json", "g.json")
    # Five +1.5 % steps: each passes, together a drift (WARN, exit 0 on the last level).
    levels = [100440.0 * 1.015 ** (i // 10) for i in range(50)]
    fake_history(blf, gemm, levels, noise=0.005)
    p = run(A.rocm_perf, "gate", "--test", "gemm", "--baseline-dir", bl, "--trace",
            db("trace_a2"), "--kernel", "gemm", "--json", "d.json", expect=0)
    drift = [c for c in json.load(open("d.json"))["checks"] if c["family"] == "trend"]
    check(len(drift) == 1 and drift[0]["verdict"] == "warn" and "slow drift" in drift[0]["message"],
          "gate: a slow drift is a trend WARN", p)
    # accept: the reason is recorded, history_ns restarts, trend shows it.
    run(A.rocm_perf, "baseline", "accept", "--test", "gemm", "--baseline-dir", bl, "--trace",
        db("trace_a"), expect=2)
    p = run(A.rocm_perf, "baseline", "accept", "--test", "gemm", "--baseline-dir", bl, "--trace",
            db("trace_slow"), "--reason", "bigger tiles, slower by design", expect=0)
    check("reason: bigger tiles, slower by design" in p.stdout, "accept says why", p)
    doc = json.load(open(blf))
    check(doc["history"][-1]["accepted"] == "bigger tiles, slower by design" and
          all(len(k["history_ns"]) == 1 for k in doc["runtime"]["kernels"]),
          "accept: the entry carries the reason, history_ns restarts")
    fake_history(blf, gemm, [100440.0] * 20 + [109780.0] * 20, accepted_at=20)
    p = run(A.rocm_perf, "baseline", "trend", "--test", "gemm", "--baseline-dir", bl, "--json",
            expect=0)
    k = [k for k in json.loads(p.stdout)["kernels"] if k["name"] == gemm][0]
    check(k["change_points"] and k["change_points"][0]["accepted"] == "new tiling",
          "trend: an accepted move explains its change point", p)
    for bad in (["--test", "gemm"], ["--test", "nope", "--baseline-dir", bl],
                ["--test", "gemm", "--baseline-dir", bl, "--permutations", "3"]):
        p = run(A.rocm_perf, "baseline", "trend", *bad)
        check(p.returncode == 2 and p.stderr.count("\n") == 1, f"trend {bad}: one line, exit 2", p)


def png_pixels(path):
    """(width, height, RGB tuples) of an 8-bit RGB/RGBA non-interlaced PNG (Chromium's)."""
    import struct
    import zlib
    data = open(path, "rb").read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            check(depth == 8 and ctype in (2, 6) and not interlace, "PNG is 8-bit RGB(A)")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, px = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p_ = a + b - c
                pa, pb, pc = abs(p_ - a), abs(p_ - b), abs(p_ - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        px.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return w, h, px


def case_html():
    """report --suite --html: one self-contained file that tidy accepts and headless Chromium
    renders (screenshot not blank, the DOM holds the charts and tables); the suite JSON and
    JUnit carry the geometric mean."""
    gemm = "gemm(float*, float*, float*, int)"
    update("--trace", db("trace_a"), expect=0)
    fake_history(BL, gemm, [100440.0] * 30 + [108480.0] * 30, noise=0.02, accepted_at=30)
    os.makedirs("res")
    gate("--trace", db("trace_slow"), "--json", "res/gemm.json", expect=1)
    gate("--trace", db("trace_a2"), "--json", "res/gemm_a2.json", expect=0)
    # A trace with FLOP and HBM-byte counters: its result gets the roofline.
    sx = ["--test", "sx", "--baseline-dir", "bl", "--trace", db("counters_a")]
    run(A.rocm_perf, "baseline", "update", *sx, expect=0)
    run(A.rocm_perf, "gate", *sx, "--json", "res/sx.json", expect=0)
    check(json.load(open("res/sx.json"))["traces"] == [db("counters_a")],
          "the gate result names the trace it measured, absolute")
    schema_valid("gate-result.schema.json", "res/sx.json")
    p = run(A.rocm_perf, "report", "--suite", "res", "--html", "r.html", "--json", "s.json",
            "--junit", "s.xml", "--markdown", "s.md", expect=1)
    check("geometric mean of the runtime ratios" in p.stdout, "suite text: geometric mean", p)
    schema_valid("suite.schema.json", "s.json")
    s = json.load(open("s.json"))
    rs = [json.load(open(f"res/{f}")) for f in ("gemm.json", "gemm_a2.json", "sx.json")]
    import math
    logs = [c["runtime"]["log_ratio"] for r in rs for c in r["checks"] if c["runtime"]]
    want = math.exp(sum(logs) / len(logs))
    g = s["geomean"]
    check(abs(g["ratio"] - want) < 1e-9 and g["kernels"] == len(logs) and g["tests"] == 3 and
          g["ci_low"] <= g["ratio"] <= g["ci_high"], f"suite JSON: geometric mean {want:.4f} of "
          f"{len(logs)} kernels within its interval")
    xsd_valid("s.xml")
    check('name="suite.geomean_ratio"' in open("s.xml").read(), "JUnit: suite.geomean_ratio")
    check("**Suite:** geometric mean" in open("s.md").read(), "Markdown: geometric mean")
    html = open("r.html").read()
    check(not any(x in html for x in ("http://", "https://", "<script", "<link", "src=")) or
          html.count("http://www.w3.org/2000/svg") == html.count("http://"),
          "self-contained: no script, no link, no network address but the SVG namespace")
    p = run(A.tidy, "-errors", "-q", "r.html")
    check(p.returncode == 0 and not p.stderr.strip(), "tidy -errors -q passes", p)
    shot = os.path.abspath("shot.png")
    base = [A.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--user-data-dir={os.path.abspath('chromium-profile')}"]
    url = "file://" + os.path.abspath("r.html")
    p = subprocess.run(base + [f"--screenshot={shot}", "--window-size=1200,1800", url],
                       capture_output=True, text=True, timeout=120)
    check(os.path.exists(shot), "Chromium wrote a screenshot", p)
    w, h, px = png_pixels(shot)
    colours = len(set(px))
    nonwhite = sum(1 for c in px if min(c) < 235) / len(px)
    check(w == 1200 and colours >= 50 and nonwhite > 0.05,
          f"screenshot not blank: {colours} colours, {100 * nonwhite:.0f}% not white")
    # A red pixel of the change point marker and a blue one of the history line were drawn.
    check(any(c == (0xcf, 0x22, 0x2e) for c in px) and any(c == (0x09, 0x69, 0xda) for c in px),
          "screenshot shows the chart's colours")
    p = subprocess.run(base + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
    dom = p.stdout
    check(dom.count('class="chart"') >= 2 and dom.count("<table") >= 4 and
          "<th scope=\"col\">verdict</th>" in dom and "Change points (E-Divisive" in dom and
          "this run" in dom and "new tiling" in dom and "<desc>" in dom,
          "the DOM holds the charts (with text alternatives), the tables and the accepted move", p)
    # Per traced result the critical-path timeline, and the roofline where there are counters.
    check(dom.count("<title>rocm-perf critical path</title>") == 3 and
          dom.count("Critical-path timeline (one lane") == 3,
          "three critical-path timelines inlined, each with a caption", p)
    check(dom.count("Roofline (log-log") == 1 and "saxpy" in dom and "% of its roof" in dom and
          dom.count("Roofline not available: the trace has no FLOP and HBM-byte counters") == 2,
          "the roofline of the counted trace, 'not available' with the reason for the others", p)
    os.remove(db("trace_a2"))
    run(A.rocm_perf, "report", "--suite", "res", "--html", "gone.html", expect=1)
    check("Roofline and critical path not available: " in open("gone.html").read(),
          "a removed trace: the page says the figures are not available")


def case_usage():
    """Bad usage exits 2 with one line; --help exits 0."""
    for args in (["--baseline-dir", "bl", "--trace", "x.db"],
                 ["--test", "t", "--trace", "x.db"],
                 ["--test", "t", "--baseline-dir", "bl"],
                 ["--test", "t", "--baseline-dir", "bl", "--trace", db("trace_a"), "--static",
                  "x.co"],
                 ["--test", "t", "--baseline-dir", "bl", "--tolerance", "150%", "--trace", "x"],
                 ["--test", "../t", "--baseline-dir", "bl", "--trace", db("trace_a")],
                 ["--test", "t", "--baseline-dir", "bl", "--trace", "missing.db"],
                 ["--test", "t", "--baseline-dir", "bl", "--undecided", "maybe", "--trace",
                  db("trace_a")],
                 ["--test", "t", "--baseline-dir", "bl", "--retry-undecided", "x", "--trace",
                  db("trace_a")],
                 ["--test", "t", "--baseline-dir", "bl", "--reason", "r", "--trace",
                  db("trace_a")]):
        p = run(A.rocm_perf, "gate", *args, expect=2)
        check(p.stderr.count("\n") == 1 and p.stderr.startswith("rocm-perf: "),
              f"usage error {args[:3]}: one line", p)
    for sub in (["gate", "--help"], ["baseline", "--help"], ["report", "--suite", "x", "--help"]):
        p = run(A.rocm_perf, *sub, expect=0)
        check(p.stdout.startswith("usage: rocm-perf"), f"{' '.join(sub)}", p)


def case_app():
    """-- APP through the rocprofv3 test double (tests/profile/fake-rocprofv3), no GPU:
    repeated runs until the samples are there, and a confirmation run on a FAIL."""
    for name, desc in (("same", "trace_a"), ("slow", "trace_slow")):
        os.makedirs(name, exist_ok=True)
        shutil.copy(os.path.join(A.fixtures, desc + ".json"), os.path.join(name, "trace.json"))
    env = {"ROCM_PERF_BACKEND": "rocprofv3", "RPL_FIXTURE_TOOL": A.fixture,
           "PATH": A.double_bin + os.pathsep + os.environ.get("PATH", ""),
           "FAKE_ROCPROF_DIR": os.path.abspath("same")}
    # 39 gemm samples per run after warm-up: 60 repetitions need two runs.
    p = update("--repetitions", "60", "--", "/bin/true", env=env, expect=0)
    check("median 100.44 us over 78 samples" in p.stdout, "two runs of the program merged", p)
    p = gate("--repetitions", "60", "--json", "same.json", "--", "/bin/true", env=env, expect=0)
    check(json.load(open("same.json"))["input"] == "app", "app input recorded")
    # --keep-trace: the last run's trace stays, the result names it, the HTML draws it.
    os.makedirs("kept", exist_ok=True)
    p = gate("--repetitions", "60", "--json", "kept/same.json", "--keep-trace", "kept/run.db",
             "--", "/bin/true", env=env, expect=0)
    r = json.load(open("kept/same.json"))
    check(r["traces"] == [os.path.abspath("kept/run.db")], "the result names the kept trace", p)
    p = run(A.rocm_perf, "analyze", "kept/run.db", expect=0)
    check("gemm" in p.stdout, "the kept trace is a rocpd database holding the run", p)
    run(A.rocm_perf, "report", "--suite", "kept", "--html", "kept.html", expect=0)
    check("Critical-path timeline (one lane" in open("kept.html").read(),
          "the HTML of an app run with a kept trace has its critical path")
    p = run(A.rocm_perf, "gate", "--test", "gemm", "--baseline-dir", "bl", "--keep-trace",
            "x.db", "--trace", db("trace_a"), expect=2)
    check("--keep-trace" in p.stderr and not os.path.exists("x.db"),
          "--keep-trace goes with -- APP only", p)
    env["FAKE_ROCPROF_DIR"] = os.path.abspath("slow")
    p = gate("--repetitions", "30", "--json", "slow.json", "--junit", "slow.xml", "--",
             "/bin/true", env=env, expect=1)
    r = json.load(open("slow.json"))
    check(r["confirmed"] and r["confirmation"].startswith("confirmed"),
          "a FAIL is measured again before it stands", p)
    check("confirmed: a second measurement failed the gate too" in p.stdout, "says so", p)
    xsd_valid("slow.xml")
    p = run(A.rocm_perf, "gate", "--test", "gemm", "--baseline-dir", "bl", "--", "/bin/true",
            env=dict(env, ROCM_PERF_BACKEND="nvidia"), expect=2)
    check("ROCM_PERF_BACKEND is 'nvidia'" in p.stderr, "bad ROCM_PERF_BACKEND", p)
    # GPU state through the NVML test double: recorded with the baseline entry and the result;
    # a throttled run warns, or with --require-stable-clocks is an environment error (exit 3).
    env["FAKE_ROCPROF_DIR"] = os.path.abspath("same")
    env["ROCM_PERF_NVML_LIBRARY"] = A.fake_nvml
    p = update("--repetitions", "30", "--", "/bin/true", env=env, expect=0)
    st = json.load(open(BL))["history"][-1]["gpu_state"]
    check(st and st["source"] == "nvml" and st["sm_clock_mhz"] == 1980 and not st["throttled"],
          "baseline history entry holds the GPU state", p)
    schema_valid("baseline.schema.json", BL)
    env["FAKE_NVML_REASONS"] = "0x4"
    p = gate("--repetitions", "30", "--json", "thr.json", "--", "/bin/true", env=env, expect=0)
    r = json.load(open("thr.json"))
    clocks = [c for c in r["checks"] if c["family"] == "clocks"]
    check(r["gpu_state"]["throttle_reasons"] == ["sw_power_cap"] and len(clocks) == 1 and
          clocks[0]["verdict"] == "warn" and "throttled" in clocks[0]["message"],
          "a throttled measurement is flagged", p)
    schema_valid("gate-result.schema.json", "thr.json")
    p = gate("--repetitions", "30", "--require-stable-clocks", "--", "/bin/true", env=env,
             expect=3)
    check("clocks not stable" in p.stderr and p.stderr.count("\n") == 1,
          "--require-stable-clocks: exit 3, one line", p)
    env["FAKE_NVML_REASONS"] = "0"
    env["FAKE_NVML_SM"] = "1400"
    p = gate("--repetitions", "30", "--require-stable-clocks", "--", "/bin/true", env=env,
             expect=3)
    check("from the baseline's 1980 MHz" in p.stderr, "a clock far from the baseline's", p)


def case_nogpu():
    """-- APP on a machine without a GPU: exit 77 (ctest SKIP_RETURN_CODE), nothing written."""
    p = run(A.rocm_perf, "gate", "--test", "t", "--baseline-dir", "bl", "--json", "r.json",
            "--", "/bin/true", expect=77)
    check("no AMD or NVIDIA GPU found" in p.stderr, "says why", p)
    check(not os.path.exists("r.json") and not os.path.exists("bl"), "nothing written")
    run(A.rocm_perf, "baseline", "update", "--test", "t", "--baseline-dir", "bl", "--",
        "/bin/true", expect=77)


def main():
    global A
    ap = argparse.ArgumentParser()
    for o in ("--rocm-perf", "--fixture", "--fixtures", "--xsd", "--schemas", "--validate",
              "--workdir", "--kernels", "--double-bin"):
        ap.add_argument(o, required=True)
    ap.add_argument("--hipcc")
    ap.add_argument("--fake-nvml")
    ap.add_argument("--chromium")
    ap.add_argument("--tidy")
    ap.add_argument("case")
    A = ap.parse_args()
    for k in ("rocm_perf", "fixture", "fixtures", "xsd", "schemas", "validate", "kernels",
              "double_bin"):
        setattr(A, k, os.path.abspath(getattr(A, k)))
    work = os.path.join(A.workdir, A.case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    globals()["case_" + A.case]()


if __name__ == "__main__":
    main()
