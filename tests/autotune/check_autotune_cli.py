#!/usr/bin/env python3
"""rocm-perf autotune through the real CLI, without a GPU.

Measurements go through the rocprofv3 test double (tests/profile/fake-rocprofv3,
FAKE_ROCPROF_MODE=app) running the synthetic objective (tests/autotune/objective.c,
a test double too), whose kernel runtime is a known function of its parameters.

usage: check_autotune_cli.py --rocm-perf EXE --objective EXE --fixture EXE
           --double-bin DIR --source DIR --schemas DIR --validate SCRIPT
           --workdir DIR [--hipcc HIPCC] CASE
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

A = None
OPTIMUM = {"BM": 64, "BN": 64, "TM": 4, "U": 3}
OBJ_ARGS = "BM={BM} BN={BN} TM={TM} U={U}"


def fail(msg, p=None):
    if p is not None:
        print(f"--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}", file=sys.stderr)
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg, p=None):
    if not cond:
        fail(msg, p)


def env():
    e = dict(os.environ)
    e.update({"PATH": A.double_bin + os.pathsep + e.get("PATH", ""),
              "FAKE_ROCPROF_MODE": "app", "RPL_FIXTURE_TOOL": A.fixture,
              "ROCM_PERF_BACKEND": "rocprofv3"})
    for k in ("ROCM_PERF_LOG", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
              "ROCR_VISIBLE_DEVICES", "LAUNCHED"):
        e.pop(k, None)
    return e


def autotune(*args, expect=0, extra_env=None):
    e = env()
    e.update(extra_env or {})
    cmd = [A.rocm_perf, "autotune", *args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    if p.returncode != expect:
        fail(f"exit {p.returncode}, expected {expect}: {' '.join(cmd)}", p)
    return p


def space(name):
    return os.path.join(A.source, name)


def validate(path):
    p = subprocess.run([sys.executable, A.validate,
                        os.path.join(A.schemas, "autotune-result.schema.json"), path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, f"{path} does not follow its schema: {p.stdout}")
    return json.load(open(path))


def log_lines(path):
    if not os.path.exists(path):
        return []
    return [line.split() for line in open(path) if line.strip()]


def case_optimum():
    """200 configs, the optimum found measuring at most 30 %; JSON and SVG valid."""
    p = autotune("--space", space("space_known.json"), "--cmd-template",
                 f"{A.objective} {OBJ_ARGS}", "--no-cache", "--json", "r.json", "--plot", "r.svg")
    r = validate("r.json")
    check(r["space"]["configs"] == 200 and r["space"]["combinations"] == 400,
          "the constraint keeps 200 of 400", p)
    check(r["best"]["parameters"] == OPTIMUM, f"best {r['best']['parameters']}", p)
    c = r["counts"]
    check(r["budget"] == 60, f"the budget is floor(0.30 x 200) = 60, not {r['budget']}", p)
    check(c["measurements"] <= 60 and c["measured"] <= 60,
          f"{c['measurements']} measurements ({c['measured']} configs) of 200", p)
    check(c["measurements"] == c["measured"] + c["confirm_remeasures"] + c["unstable_remeasures"],
          f"measurements add up: {c}", p)
    check(c["profiler_runs"] == c["measurements"], "one profiler run per measurement", p)
    check(c["confirm_remeasures"] == 3 and not r["confirm"]["cut"], "the confirm phase fit", p)
    check("measurements 60 of the budget's 60" in p.stdout or
          f"measurements {c['measurements']} of the budget's 60" in p.stdout,
          "the summary counts measurements against the budget", p)
    m = r["model"]
    check(m["cv_error"] is not None and 0 <= m["cv_error"] < 0.1 and m["cv_points"] >= 7,
          f"a CV error (median held-out |pred/meas - 1|) on the seed configs: {m['cv_error']}", p)
    check("median held-out |pred/meas - 1|" in p.stdout, "the summary says what the CV error is", p)
    check(r["counts"]["measured"] == len([c for c in r["configs"] if c["status"] == "ok"]),
          "every measured config is listed")
    check(r["model"]["trusted"] and r["model"]["r2"] >= 0.75, "the model is trusted", p)
    check(not r["best"]["tie"], "the optimum beats its runner-up (5 % apart)", p)
    check(r["best"]["samples"] == 40, "confirmed with 2 x 20 samples", p)
    phases = {c["phase"] for c in r["configs"]}
    check({"seed", "guided"} <= phases, f"seed and guided phases: {phases}", p)
    check("best: BM=64 BN=64 TM=4 U=3" in p.stdout, "the summary names the best", p)
    x = subprocess.run(["xmllint", "--noout", "r.svg"], stderr=subprocess.PIPE, text=True)
    check(x.returncode == 0, f"r.svg is not well-formed XML: {x.stderr}")
    check(open("r.svg").read().count("<circle") >= 60, "one point per measured config")


def case_cache():
    """A second run measures nothing; a changed program or --no-cache measures again."""
    shutil.copy(A.objective, "objective")
    log = os.path.abspath("runs.log")
    args = ["--space", space("space_known.json"), "--cmd-template",
            f"./objective --log {log} {OBJ_ARGS}", "--cache", "cache/tune.db"]
    autotune(*args, "--json", "first.json")
    first, runs1 = validate("first.json"), len(log_lines(log))
    check(first["counts"]["cache_hits"] == 0 and first["counts"]["profiler_runs"] == runs1,
          "the first run measures everything itself")
    p = autotune(*args, "--json", "second.json")
    second = validate("second.json")
    check(len(log_lines(log)) == runs1, "the second run ran the program again", p)
    check(second["counts"]["profiler_runs"] == 0, "second run: no profiler runs", p)
    check(second["counts"]["cache_hits"] == second["counts"]["measured"] == 
          first["counts"]["measured"], f"all {first['counts']['measured']} from the cache", p)
    check(second["best"] == first["best"], "the same answer from the cache", p)
    check(all(c["from_cache"] for c in second["configs"]), "every config marked from_cache")
    p = autotune(*args[:-2], "--no-cache", "--json", "nocache.json")
    check(validate("nocache.json")["counts"]["profiler_runs"] > 0, "--no-cache measures", p)
    check(len(log_lines(log)) > runs1, "--no-cache ran the program", p)
    # A rebuilt program (other bytes, same command) is another cache key.
    with open("objective", "ab") as f:
        f.write(b"\0rebuilt")
    runs2 = len(log_lines(log))
    autotune(*args, "--json", "rebuilt.json")
    check(validate("rebuilt.json")["counts"]["cache_hits"] == 0, "a changed binary misses")
    check(len(log_lines(log)) > runs2, "the changed binary was measured")
    # Two tuners at once on one cache (different seeds, so different configs): both finish,
    # and afterwards each finds all of its configs there.
    procs = []
    for seed in ("11", "12"):
        cmd = [A.rocm_perf, "autotune", *args[:-2], "--cache", "shared.db", "--seed", seed,
               "--json", f"shared{seed}.json"]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      text=True, env=env()))
    for pr in procs:
        _, err = pr.communicate()
        check(pr.returncode == 0, f"a concurrent tuner failed: {err}")
    for seed in ("11", "12"):
        p = autotune(*args[:-2], "--cache", "shared.db", "--seed", seed, "--json", "again.json")
        check(validate("again.json")["counts"]["profiler_runs"] == 0,
              f"seed {seed}: everything in the shared cache", p)
    # A file that is not a cache is bad input, one line, exit 2.
    with open("notdb", "w") as f:
        f.write("not a database " * 20)
    p = autotune(*args[:-2], "--cache", "notdb", expect=2)
    check(p.stderr.count("\n") == 1 and "is not an autotune cache" in p.stderr, "not a cache", p)


def case_pathological():
    """Random runtimes: the low R^2 warning fires and the confirm phase widens."""
    p = autotune("--space", space("space_known.json"), "--cmd-template",
                 f"{A.objective} --random 7 {OBJ_ARGS}", "--no-cache", "--json", "r.json")
    r = validate("r.json")
    check("low R\u00b2 warning" in p.stderr, "the warning is printed", p)
    check(r["model"]["r2"] < 0.75 and not r["model"]["trusted"], "R^2 is low", p)
    check(r["confirm"]["widened"] and len(r["confirm"]["configs"]) == 6,
          "the confirm phase takes 2 x top-k", p)
    check(any("low R\u00b2 warning" in w for w in r["warnings"]), "the warning is in the JSON")
    check("explore" in {c["phase"] for c in r["configs"]}, "space-filling instead of guided", p)
    check(r["counts"]["measured"] <= 60, "still within the budget", p)
    # The best measured config is the winner: the model did not pick it.
    ok = [c for c in r["configs"] if c["status"] == "ok"]
    check(r["best"]["median_ns"] == min(c["median_ns"] for c in ok if c["samples"] == 40),
          "the fastest confirmed config wins", p)


def case_cut():
    """A budget too small for the confirm phase: it is cut to fit, and says so."""
    base = ["--space", space("space_known.json"), "--cmd-template", f"{A.objective} {OBJ_ARGS}",
            "--no-cache", "--json", "r.json"]
    # A trusted model: the search leaves the confirm phase its top-k.
    p = autotune(*base, "--budget", "12", "--min-r2", "0")
    r = validate("r.json")
    c = r["counts"]
    check(c["measurements"] == 12 and c["measured"] == 9 and c["confirm_remeasures"] == 3 and
          not r["confirm"]["cut"], f"9 configs and 3 confirmed within 12: {c}", p)
    # Not trusted after the seed: the widened confirm phase (6) no longer fits.
    p = autotune(*base, "--budget", "12")
    r = validate("r.json")
    c = r["counts"]
    check(c["measurements"] == 12 and r["confirm"]["cut"] and r["confirm"]["wanted"] == 6 and
          len(r["confirm"]["configs"]) == 12 - c["measured"],
          f"the confirm phase takes what is left: {c}, {r['confirm']}", p)
    check("confirm phase cut to" in p.stderr and "the confirm phase was cut to fit" in p.stdout,
          "it says so", p)
    p = autotune(*base, "--budget", "1")
    r = validate("r.json")
    c = r["counts"]
    check(c["measurements"] == 1 and c["confirm_remeasures"] == 0, f"a budget of 1: {c}", p)
    check(r["confirm"]["cut"] and r["confirm"]["configs"] == [] and r["best"] is not None,
          "the confirm phase is cut to nothing; the measured config wins", p)
    check("confirm phase cut to 0 of 1 configs" in p.stderr and
          "the confirm phase was cut to fit" in p.stdout, "it says so", p)


def case_unstable():
    """Unstable configs are measured again within the budget; a cached re-run charges the same."""
    args = ["--space", space("space_known.json"), "--cmd-template",
            f"{A.objective} --jitter 0.5 {OBJ_ARGS}", "--budget", "20", "--cache", "u.db"]
    p = autotune(*args, "--json", "first.json")
    first = validate("first.json")
    c = first["counts"]
    check(c["unstable_remeasures"] > 0 and c["measurements"] <= 20, f"re-measures counted: {c}", p)
    check(c["measurements"] == c["measured"] + c["confirm_remeasures"] + c["unstable_remeasures"],
          f"measurements add up: {c}", p)
    check(c["profiler_runs"] == c["measurements"], "one profiler run per measurement", p)
    remeasured = [x for x in first["configs"] if x["remeasured"]]
    check(len(remeasured) == c["unstable_remeasures"] and all(x["unstable"] for x in first["configs"]
                                                             if x["status"] == "ok"),
          "every config unstable; the re-measured ones marked", p)
    p = autotune(*args, "--json", "second.json")
    second = validate("second.json")
    check(second["counts"]["profiler_runs"] == 0, "the cached re-run measures nothing", p)
    for k in ("measured", "measurements", "confirm_remeasures", "unstable_remeasures"):
        check(second["counts"][k] == c[k], f"{k}: {second['counts'][k]} again, not {c[k]}", p)
    check(second["best"] == first["best"], "the same answer from the cache", p)


def stamped_builds(build_template, cmd_template, check_log):
    """Two runs whose builds differ in their bytes only: the second measures nothing."""
    blog = os.path.abspath("builds.log")
    args = ["--space", space("space_build.json"), "--build-template", build_template,
            "--cmd-template", cmd_template, "--kernel", "vector_add", "--budget", "100%",
            "--cache", "c.db"]
    runs = []
    for name in ("first", "second"):
        p = autotune(*args, "--json", f"{name}.json", extra_env={"FAKE_BUILD_LOG": blog})
        runs.append((validate(f"{name}.json"), p))
    (first, _), (second, p) = runs
    if check_log:
        check(len(log_lines(blog)) == 6, f"every config built twice: {log_lines(blog)}")
    check(first["counts"]["profiler_runs"] > 0 and first["counts"]["cache_hits"] == 0,
          "the first run measures", runs[0][1])
    check(second["counts"]["profiler_runs"] == 0 and
          second["counts"]["cache_hits"] == second["counts"]["measured"] ==
          first["counts"]["measured"], "the rebuilt configs all hit the cache", p)
    check(second["best"] == first["best"], "the same answer from the cache", p)
    before = {c["index"]: c for c in first["configs"]}
    for c in second["configs"]:
        b = before[c["index"]]
        check(c["binary_sha256"] != b["binary_sha256"],
              f"config {c['index']} was rebuilt into other bytes")
        check(c["code_kind"] == "gpu_code" and c["code_sha256"] == b["code_sha256"] and
              c["inputs_sha256"] == b["inputs_sha256"],
              f"config {c['index']}: the same GPU code and build inputs")
    return args, first


def case_rebuild():
    """Builds that differ only in an embedded time hit the cache; other GPU code misses."""
    fatbin = os.path.abspath("kernel.fatbin")
    shutil.copy(os.path.join(A.source, "..", "inspect", "recorded", "basic.fatbin"), fatbin)
    args, first = stamped_builds(
        f"{space('stamp-build.sh')} {A.objective} {fatbin} {{E}} {{OUT}}",
        "{OUT} --kernel-name vector_add --extra-ns {E} U={U}", True)
    check(len({c["code_sha256"] for c in first["configs"]}) == 1 and
          len({c["inputs_sha256"] for c in first["configs"]}) == 3,
          "one GPU code, three builds (E differs)")
    # Other GPU code (and so other build inputs) under the same command: measured again.
    shutil.copy(os.path.join(A.source, "..", "inspect", "recorded", "smem.fatbin"), fatbin)
    p = autotune(*args, "--json", "third.json")
    third = validate("third.json")
    check(third["counts"]["cache_hits"] == 0 and third["counts"]["profiler_runs"] > 0,
          "changed GPU code misses the cache", p)


def case_nvcc():
    """Real nvcc builds (temporary names in every program): the second run measures nothing."""
    if not A.nvcc:
        fail("the nvcc case needs --nvcc")
    # An object file: enough GPU code to key on, no main to link.
    stamped_builds(f"{A.nvcc} -O1 -arch=sm_90 -c -DE={{E}} -o {{OUT}} "
                   f"{os.path.join(A.source, '..', 'inspect', 'kernels', 'basic.cu')}",
                   f"{A.objective} --program {{OUT}} --kernel-name vector_add --extra-ns {{E}} "
                   "U={U}", False)


def case_progress():
    """On a terminal the progress line shows an ETA; -q and a pipe draw nothing."""
    import pty
    args = ["--space", space("space_known.json"), "--cmd-template",
            f"{A.objective} --sleep-ms 15 {OBJ_ARGS}", "--no-cache", "--budget", "40"]
    for quiet in (False, True):
        master, slave = pty.openpty()
        cmd = [A.rocm_perf, *(["-q"] if quiet else []), "autotune", *args]
        pr = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=slave, env=env())
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        pr.wait()
        os.close(master)
        text = b"".join(chunks).decode("utf-8", "replace")
        check(pr.returncode == 0, f"exit {pr.returncode}: {text[-500:]}")
        if quiet:
            check("autotune: measuring" not in text, f"-q draws no progress: {text[-300:]}")
        else:
            check("autotune: measuring: " in text and " ETA " in text,
                  f"progress with an ETA on a terminal: {text[-300:]}")
    p = autotune(*args)
    check("autotune: measuring" not in p.stderr, "no progress line into a pipe", p)


def overlaps(lines):
    spans = [(int(s), int(e), vis) for s, e, vis, _, _ in lines]
    found = 0
    for i, (s1, e1, v1) in enumerate(spans):
        for s2, e2, v2 in spans[i + 1:]:
            if s1 < e2 and s2 < e1:
                found += 1
                if v1 == v2:
                    fail(f"two measurements on device {v1} at once: {s1}-{e1} and {s2}-{e2}")
    return found


def case_launcher_jobs():
    """--launcher sees every measurement; --jobs 2 never shares a device visibility."""
    log, llog = os.path.abspath("runs.log"), os.path.abspath("launcher.log")
    with open("launch.sh", "w") as f:
        f.write("#!/bin/sh\n# stand-in for a scheduler prefix such as srun: logs, then runs\n"
                f"echo \"$$ $*\" >> {llog}\nLAUNCHED=yes exec \"$@\"\n")
    os.chmod("launch.sh", 0o755)
    p = autotune("--space", space("space_known.json"), "--cmd-template",
                 f"{A.objective} --sleep-ms 40 --log {log} {OBJ_ARGS}", "--no-cache",
                 "--jobs", "2", "--launcher", f"sh {os.path.abspath('launch.sh')}",
                 "--json", "r.json")
    r = validate("r.json")
    runs, launched = log_lines(log), log_lines(llog)
    check(len(runs) == r["counts"]["profiler_runs"] == len(launched),
          f"{len(runs)} program runs, {len(launched)} launches, "
          f"{r['counts']['profiler_runs']} profiler runs", p)
    check(all(x[3] == "yes" for x in runs), "every program run came through the launcher")
    check(all("rocprofv3" in " ".join(x) for x in launched), "the launcher wraps the profiler")
    check({x[2] for x in runs} == {"0", "1"}, f"two slots: {sorted({x[2] for x in runs})}")
    check(overlaps(runs) > 0, "two measurements ran at once at least once")
    check(r["jobs"] == 2 and r["best"]["parameters"] == OPTIMUM, "same winner with 2 jobs", p)
    check(r["device"].startswith("launcher: sh "), "the launcher names the device key", p)


def case_failures():
    """A failing and a timed-out config are recorded; the search goes on."""
    p = autotune("--space", space("space_small.json"), "--cmd-template",
                 f"{A.objective} --fail-if BM=32 --sleep-if BM=128 BM={{BM}} U={{U}}",
                 "--no-cache", "--budget", "100%", "--timeout", "3", "--json", "r.json")
    r = validate("r.json")
    by = {(c["parameters"]["BM"], c["parameters"]["U"]): c for c in r["configs"]}
    for u in (2, 3):
        check(by[(32, u)]["status"] == "run_failed" and
              "failing on purpose" in by[(32, u)]["message"], f"BM=32 U={u} failed", p)
        check(by[(128, u)]["status"] == "timeout", f"BM=128 U={u} timed out", p)
    check(r["counts"]["run_failed"] == 4 and r["exhaustive"], "4 failures counted", p)
    check(r["best"]["parameters"] == {"BM": 64, "U": 3}, "the best of the rest", p)
    # Nothing measurable: exit 1 with one line.
    p = autotune("--space", space("space_small.json"), "--cmd-template",
                 "/nonexistent/program BM={BM} U={U}", "--no-cache", "--budget", "6", expect=1)
    check(p.stderr.strip().endswith("no configuration could be measured (0 failed to build, 0 "
                                    "pruned, 6 failed or timed out)"), "says so", p)


def case_build():
    """Builds: identical ones once, a failing one recorded, {OUT} per build."""
    blog = os.path.abspath("builds.log")
    p = autotune("--space", space("space_build.json"), "--build-template",
                 f"{space('fake-build.sh')} {A.objective} {{E}} {{OUT}}",
                 "--cmd-template", "{OUT} U={U}", "--no-cache", "--budget", "1.0",
                 "--work-dir", "work", "--build-jobs", "2", "--json", "r.json",
                 extra_env={"FAKE_BUILD_LOG": blog})
    r = validate("r.json")
    builds = log_lines(blog)
    check(len(builds) == 3 and r["counts"]["builds"] == 3, f"3 builds for 9 configs: {builds}", p)
    check(len({b[1] for b in builds}) == 3, "one {OUT} per build")
    check(all(b[1].startswith(os.path.abspath("work")) for b in builds), "{OUT} in --work-dir")
    failed = [c for c in r["configs"] if c["status"] == "build_failed"]
    check(len(failed) == 3 and all(c["parameters"]["E"] == 9999 for c in failed),
          "the E=9999 build failed for its 3 configs", p)
    check("EXTRA_NS=9999 does not compile" in failed[0]["message"], "with the compiler's line")
    check(r["best"]["parameters"] == {"E": 0, "U": 3}, f"best {r['best']['parameters']}", p)
    check(all("binary_sha256" in c for c in r["configs"] if c["status"] == "ok"), "digests")
    check(os.path.isdir("work"), "--work-dir is kept")


def case_overlap():
    """Builds after the seed's run while the seed is measured; the choices stay the same."""
    events = os.path.abspath("events.log")
    args = ["--space", space("space_overlap.json"), "--build-template",
            f"{space('fake-build.sh')} {A.objective} {{E}} {{OUT}}",
            "--cmd-template", f"{{OUT}} --log {events} U={{U}}", "--no-cache", "--budget", "7"]
    # One build at a time; the last to start waits for a measurement (or gives up after 60 s).
    p = autotune(*args, "--build-jobs", "1", "--json", "r.json",
                 extra_env={"FAKE_BUILD_EVENTS": events, "FAKE_BUILD_AWAIT_RUN": "8"})
    r = validate("r.json")
    lines = [line.split() for line in open(events) if line.strip()]
    runs = [i for i, w in enumerate(lines) if w[0][0].isdigit()]
    ends = [i for i, w in enumerate(lines) if w[0] == "build-end"]
    check(len(ends) == 8 and r["counts"]["builds"] == 8, f"8 builds: {lines}", p)
    check(not any(w[0] == "build-gave-up" for w in lines),
          f"the last build saw a measurement start: {lines}", p)
    check(runs and runs[0] < ends[-1], f"a measurement before the last build ended: {lines}", p)
    check(r["build_overlap_s"] > 0 and "s of them while measuring" in p.stdout,
          "the overlap is reported", p)
    check(r["counts"]["measurements"] <= 7, "within the budget", p)
    # All builds at once, in other order and timing: the same configs measured, the same best.
    p2 = autotune(*args, "--build-jobs", "4", "--json", "r2.json")
    r2 = validate("r2.json")
    measured = sorted(c["index"] for c in r["configs"] if c["status"] == "ok")
    measured2 = sorted(c["index"] for c in r2["configs"] if c["status"] == "ok")
    check(measured == measured2, f"same configs measured: {measured} and {measured2}", p2)
    check(r["best"]["parameters"] == r2["best"]["parameters"], "same best", p2)


def case_static():
    """hipcc builds: static features read, too-large blocks pruned, a failed compile recorded."""
    if not A.hipcc:
        fail("the static case needs --hipcc")
    p = autotune("--space", space("space_hip.json"), "--build-template",
                 f"{A.hipcc} --offload-arch=gfx90a -O1 --genco -DTHREADS={{THREADS}} "
                 f"-DLDS_FLOATS={{LDS_FLOATS}} -o {{OUT}} {space('tile_lds.hip')}",
                 "--cmd-template",
                 f"{A.objective} --program {{OUT}} --kernel-name tile_lds BM={{THREADS}} "
                 "BN={LDS_FLOATS} U={M}",
                 "--kernel", "tile_lds", "--block", "THREADS * M", "--no-cache",
                 "--budget", "100%", "--json", "r.json")
    r = validate("r.json")
    by = {(c["parameters"]["THREADS"], c["parameters"]["LDS_FLOATS"], c["parameters"]["M"]): c
          for c in r["configs"]}
    check(r["counts"]["builds"] == 6 and r["counts"]["build_failed"] == 4,
          "6 builds, 128 KiB of LDS fails for 4 configs", p)
    check(r["counts"]["pruned"] == 4, "every M=2 config that built is pruned", p)
    c = by[(64, 16384, 2)]
    check(c["status"] == "pruned" and "exceeds the kernel's limit of 64" in c["message"],
          "the reason names the launch bound", p)
    ok = by[(256, 16384, 1)]
    check(ok["status"] == "ok" and ok["features"]["lds_bytes"] == 65536 and
          ok["features"]["arch"] == "gfx90a" and ok["features"]["block"] == 256,
          f"features of a measured config: {ok.get('features')}", p)
    check(r["counts"]["measured"] == 4, "the 4 runnable configs measured", p)
    check("lds_bytes" in r["model"]["inputs"], f"LDS is a model input: {r['model']['inputs']}", p)


def main():
    global A
    ap = argparse.ArgumentParser()
    for o in ("--rocm-perf", "--objective", "--fixture", "--double-bin", "--source", "--schemas",
              "--validate", "--workdir"):
        ap.add_argument(o, required=True)
    ap.add_argument("--hipcc")
    ap.add_argument("--nvcc")
    ap.add_argument("case")
    A = ap.parse_args()
    for k in ("rocm_perf", "objective", "fixture", "double_bin", "source", "schemas", "validate"):
        setattr(A, k, os.path.abspath(getattr(A, k)))
    work = os.path.join(os.path.abspath(A.workdir), A.case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    globals()["case_" + A.case]()


if __name__ == "__main__":
    main()
