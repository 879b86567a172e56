#!/usr/bin/python3
"""Run `rocm-perf analyze` and check what it prints or writes.

usage:
  analyze_check.py run [--exit N] [--stdout-has TEXT]... [--stdout-lacks TEXT]...
                       [--stderr-has TEXT]... [--one-line-error] [--no-path PATH] -- CMD...
  analyze_check.py profile --schema SCHEMA --desc DESC [--out DIR] [--helper ALIAS]...
                       [--kernel-regex REGEX] [--include-helpers] -- CMD...

`run` checks the exit code and the text of stdout/stderr.  `profile` runs
CMD (exit 0 expected), takes profile.json from stdout (or from DIR with
--out, removed first so the file must be new), validates it against SCHEMA
and compares it with the fixture description DESC, from which it works out
on its own the kernels, dispatch counts, duration bounds, resources, memory
copies and device.  The helpers are the kernels named by --helper (aliases),
else those whose name starts with __amd_rocclr_.  Exits 1 with the reasons
on stderr when a check fails.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

import jsonschema

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def run_cmd(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120)


def cmd_run(a):
    for p in a.no_path:
        if os.path.exists(p):
            os.remove(p)
    r = run_cmd(a.cmd)
    check(r.returncode == a.exit, f"exit code {r.returncode}, expected {a.exit}")
    for t in a.stdout_has:
        check(t in r.stdout, f"stdout lacks {t!r}")
    for t in a.stdout_lacks:
        check(t not in r.stdout, f"stdout has {t!r}")
    for t in a.stderr_has:
        check(t in r.stderr, f"stderr lacks {t!r}")
    if a.one_line_error:
        lines = r.stderr.splitlines()
        check(len(lines) == 1 and lines[0].startswith("rocm-perf: "),
              f"stderr is not one 'rocm-perf: ' line: {r.stderr!r}")
    for p in a.no_path:
        check(not os.path.exists(p), f"{p} was written")
    return r


def expected_from(desc, helpers, include_helpers, kernel_regex):
    """Per display name: what the fixture description says about its kernel."""
    kernels = {k["alias"]: k for k in desc["kernels"]}
    exp = {}
    for d in desc.get("dispatches", []):
        k = kernels[d["kernel"]]
        display = k.get("display_name") or k["name"]
        e = exp.setdefault(display, {"kernel": k, "alias": d["kernel"], "count": 0, "runs": []})
        count = d.get("count", 1)
        duration = d["duration_ns"] if "duration_ns" in d else d["end"] - d["start"]
        e["count"] += count
        e["runs"].append((count, duration, d.get("jitter", 0.0)))
    for e in exp.values():
        e["helper"] = e["alias"] in helpers
        regex_ok = kernel_regex is None or bool(
            re.search(kernel_regex, e["kernel"].get("display_name") or e["kernel"]["name"])
            or re.search(kernel_regex, e["kernel"]["name"]))
        e["selected"] = regex_ok and (include_helpers or not e["helper"])
    return exp


def check_kernel(name, k, e):
    check(k["dispatches"] == e["count"], f"{name}: {k['dispatches']} dispatches, "
          f"the description has {e['count']}")
    check(k["mangled_name"] == e["kernel"]["name"], f"{name}: mangled_name {k['mangled_name']!r}")
    check(k["helper"] == e["helper"], f"{name}: helper is {k['helper']}")
    res = k["resources"]
    for key, dkey in (("vgpr", "vgprs"), ("agpr", "agprs"), ("sgpr", "sgprs"),
                      ("lds_bytes", "lds"), ("scratch_bytes", "scratch")):
        if dkey in e["kernel"]:
            check(res[key] == e["kernel"][dkey], f"{name}: resources.{key} {res[key]}, "
                  f"the description has {e['kernel'][dkey]}")
    # Durations: duration * (1 + jitter * u), u in [-1, 1), rounded, at least 1 ns.
    lo = min(max(1, math.floor(d * (1 - j))) for _, d, j in e["runs"])
    hi = max(math.ceil(d * (1 + j)) for _, d, j in e["runs"])
    check(lo <= k["min_ns"] <= k["p10_ns"] <= k["median_ns"] <= k["p90_ns"] <= k["max_ns"] <= hi,
          f"{name}: durations outside [{lo}, {hi}] or quantiles out of order")
    check(abs(k["mean_ns"] * k["dispatches"] - k["total_ns"]) <= 1e-6 * k["total_ns"] + 1,
          f"{name}: mean * dispatches != total_ns")
    if all(j == 0 for _, _, j in e["runs"]):
        total = sum(c * d for c, d, _ in e["runs"])
        check(k["total_ns"] == total, f"{name}: total_ns {k['total_ns']}, expected {total}")
        if len({d for _, d, _ in e["runs"]}) == 1:
            check(k["cv"] == 0 and k["stability"] == "stable", f"{name}: cv {k['cv']}")
    elif len(e["runs"]) == 1 and e["count"] >= 30:
        # Uniform jitter has cv near jitter / sqrt(3): judged on large samples only, and
        # the class only far from its edges.
        cv = e["runs"][0][2] / math.sqrt(3)
        if cv <= 0.05 / 1.5:
            check(k["stability"] == "stable", f"{name}: {k['stability']} (cv {k['cv']}), "
                  f"jitter suggests stable")
        elif cv >= 0.10 * 1.5:
            check(k["stability"] == "unstable", f"{name}: {k['stability']} (cv {k['cv']}), "
                  f"jitter suggests unstable")
        check(abs(k["cv"] - cv) <= 0.5 * cv, f"{name}: cv {k['cv']} far from {cv:.4f}")


def check_profile(doc, desc, a):
    # Without --helper, the ROCclr kernels of the description are its helpers.
    helpers = set(a.helper) or {k["alias"] for k in desc["kernels"]
                                if k["name"].startswith("__amd_rocclr_")}
    exp = expected_from(desc, helpers, a.include_helpers, a.kernel_regex)
    got = {k["name"]: k for k in doc["kernels"]}
    want = {n for n, e in exp.items() if e["selected"]}
    check(set(got) == want, f"kernels {sorted(got)}, expected {sorted(want)}")
    for name in set(got) & want:
        check_kernel(name, got[name], exp[name])
    shares = sum(k["share"] for k in doc["kernels"])
    check(not doc["kernels"] or abs(shares - 1) < 1e-9, f"shares sum to {shares}")
    totals = [k["total_ns"] for k in doc["kernels"]]
    check(totals == sorted(totals, reverse=True), "kernels not sorted by total_ns")
    t = doc["totals"]
    check(t["dispatches"] == sum(e["count"] for e in exp.values()),
          f"totals.dispatches {t['dispatches']}")
    check(t["selected_dispatches"] == sum(e["count"] for e in exp.values() if e["selected"]),
          f"totals.selected_dispatches {t['selected_dispatches']}")
    check(t["helper_dispatches"] == sum(e["count"] for e in exp.values() if e["helper"]),
          f"totals.helper_dispatches {t['helper_dispatches']}")
    check(t["selected_time_ns"] == sum(totals), "totals.selected_time_ns != sum of total_ns")
    check(t["selected_busy_ns"] <= t["busy_ns"] <= t["span"]["duration_ns"],
          "busy times exceed the span")
    copies = desc.get("memory_copies", [])
    check(doc["memory_copies"]["count"] == sum(c.get("count", 1) for c in copies),
          f"memory_copies.count {doc['memory_copies']['count']}")
    check(doc["memory_copies"]["bytes"] == sum(c.get("count", 1) * c["size"] for c in copies),
          f"memory_copies.bytes {doc['memory_copies']['bytes']}")
    gpus = [g for g in desc["agents"] if g["type"] == "GPU"]
    if gpus:
        dev = doc["device"]
        check(dev is not None and dev["name"] == gpus[0]["name"], f"device {dev}")
        if dev and "cu_count" in gpus[0].get("extdata", {}):
            check(dev["cu_count"] == gpus[0]["extdata"]["cu_count"], f"device.cu_count {dev}")
        if dev and gpus[0].get("product_name"):
            check(dev["product"] == gpus[0]["product_name"], f"device.product {dev['product']}")
    f = doc["filter"]
    check(f["include_helpers"] == a.include_helpers, "filter.include_helpers")
    check(f["kernel_regex"] == a.kernel_regex, f"filter.kernel_regex {f['kernel_regex']!r}")
    check(all(p in a.cmd for p in doc["inputs"]), f"inputs {doc['inputs']} not on the command line")


def cmd_profile(a):
    path = os.path.join(a.out, "profile.json") if a.out else None
    if path and os.path.exists(path):
        os.remove(path)
    r = run_cmd(a.cmd)
    if r.returncode != 0:
        failures.append(f"exit code {r.returncode}: {r.stderr.strip()}")
        return
    try:
        if path:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        else:
            doc = json.loads(r.stdout)
    except (OSError, ValueError) as e:
        failures.append(f"no profile.json: {e}")
        return
    with open(a.schema, encoding="utf-8") as fh:
        schema = json.load(fh)
    cls = jsonschema.validators.validator_for(schema)
    for e in cls(schema).iter_errors(doc):
        failures.append(f"schema: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    if failures:
        return
    with open(a.desc, encoding="utf-8") as fh:
        check_profile(doc, json.load(fh), a)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run")
    r.add_argument("--exit", type=int, default=0)
    r.add_argument("--stdout-has", action="append", default=[])
    r.add_argument("--stdout-lacks", action="append", default=[])
    r.add_argument("--stderr-has", action="append", default=[])
    r.add_argument("--one-line-error", action="store_true")
    r.add_argument("--no-path", action="append", default=[])
    p = sub.add_parser("profile")
    p.add_argument("--schema", required=True)
    p.add_argument("--desc", required=True)
    p.add_argument("--out")
    p.add_argument("--helper", action="append", default=[])
    p.add_argument("--kernel-regex")
    p.add_argument("--include-helpers", action="store_true")
    for s in (r, p):
        s.add_argument("cmd", nargs="+")
    a = ap.parse_args()
    if a.mode == "run":
        cmd_run(a)
    else:
        cmd_profile(a)
    for f in failures:
        print(f"analyze_check: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
