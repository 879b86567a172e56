#!/usr/bin/env python3
"""summary.py WORK OUT: the table of gpu/replay/check.sh.

Reads what check.sh left in WORK (exit/ step statuses, json/ replay results
and snapshot metadata, rec/ recorder databases) and prints one table per
acceptance item; writes every number to OUT/results.json.
"""
import glob
import json
import os
import re
import sqlite3
import statistics
import sys

work, out = sys.argv[1], sys.argv[2]
results = {}


def status(step):
    try:
        return int(open(os.path.join(work, "exit", step)).read().strip())
    except (OSError, ValueError):
        return None


def load(name):
    try:
        with open(os.path.join(work, "json", name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def get(doc, *path):
    """doc[path[0]][path[1]]..., or None where something is missing."""
    for k in path:
        if not isinstance(doc, dict) or doc.get(k) is None:
            return None
        doc = doc[k]
    return doc


def first_difference(rep):
    """The first region or global of a replay --check that differs, shortened."""
    for c in get(rep, "check", "regions") or []:
        if c.get("mismatches"):
            return {k: c.get(k) for k in ("base", "size", "global", "dtype", "mismatches",
                                          "first_difference")}
    return None


def app_times(name, regex):
    """Durations (ns) of the matching kernels in the recorder's database."""
    dbs = glob.glob(os.path.join(work, "rec", name, "*", "*_results.db"))
    if not dbs:
        return []
    rows = sqlite3.connect(dbs[0]).execute("SELECT name, end - start FROM kernels").fetchall()
    return [float(d) for n, d in rows if re.search(regex, n or "")]


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


cases = [
    ("saxpy", "saxpy"), ("reduce", "block_reduce"), ("softmax", "softmax_rows"),
    ("gemm", "gemm_tiled"), ("gemm2048", "gemm_tiled"), ("pipeline", "transform_chunk"),
    ("cublas", "[Gg][Ee][Mm][Mm]"), ("pointer_chase", "chase"),
]

print("\n## capture and replay --check")
print(f"{'case':14} {'capture':>7} {'regions':>7} {'MiB':>8} {'replay':>6} {'check':>6} "
      f"{'determ.':>7}  kernel / first difference")
for name, _ in cases:
    d, regions, rep = load(f"dispatch_{name}.json"), load(f"regions_{name}.json"), \
        load(f"replay_{name}.json")
    rlist = (regions or {}).get("regions", [])
    mib = sum(int(r.get("size", 0)) for r in rlist) / 2**20 if rlist else None
    checked = get(rep, "check", "passed")
    first = first_difference(rep)
    kernel = (get(d, "kernel", "demangled_name") or "")[:60]
    row = {
        "capture_exit": status(f"capture_{name}"), "regions": len(rlist), "mib": mib,
        "kinds": sorted({r.get("kind") for r in rlist}), "replay_exit": status(f"replay_{name}"),
        "check_passed": checked, "deterministic": get(rep, "check", "deterministic"),
        "kernel": kernel,
        "first_difference": first, "reserve": get(rep, "reserve", "detail"),
    }
    results.setdefault("cases", {})[name] = row
    print(f"{name:14} {fmt(row['capture_exit'], 'd'):>7} {len(rlist):>7} {fmt(mib):>8} "
          f"{fmt(row['replay_exit'], 'd'):>6} {str(checked):>6} {str(row['deterministic']):>7}  "
          f"{kernel}{' ' + json.dumps(first) if first else ''}")
    if row["reserve"]:
        print(f"{'':14} reserve: {row['reserve']}")

print("\n## time per launch: application (CUPTI recorder, serial) vs replay (median of each)")
print(f"{'case':14} {'app us':>10} {'n':>4} {'replay us':>10} {'n':>4} {'diff %':>7} {'<=3%':>5} "
      f"{'event us':>9} {'diff %':>7}")
for name, regex in cases:
    if name == "pointer_chase":
        continue
    app = app_times(name, regex)
    rep, ev = load(f"replay_{name}.json"), load(f"replay_event_{name}.json")
    app_med = statistics.median(app) / 1e3 if app else None
    rep_med = get(rep, "timing", "median")
    rep_med = rep_med / 1e3 if rep_med else None
    ev_med = get(ev, "timing", "median")
    ev_med = ev_med / 1e3 if ev_med else None
    n_rep = len(get(rep, "timing", "times_ns") or [])
    diff = (rep_med - app_med) / app_med * 100 if app_med and rep_med else None
    ev_diff = (ev_med - app_med) / app_med * 100 if app_med and ev_med else None
    results.setdefault("timing", {})[name] = {
        "app_median_us": app_med, "app_n": len(app), "replay_median_us": rep_med,
        "replay_n": n_rep, "timer": get(rep, "timing", "timer"), "diff_pct": diff,
        "event_median_us": ev_med, "event_diff_pct": ev_diff,
        "app_min_us": min(app) / 1e3 if app else None,
        "replay_min_us": (get(rep, "timing", "min") or 0) / 1e3 or None,
    }
    ok = None if diff is None else abs(diff) <= 3.0
    print(f"{name:14} {fmt(app_med, '.2f'):>10} {len(app):>4} {fmt(rep_med, '.2f'):>10} "
          f"{n_rep:>4} {fmt(diff, '+.2f'):>7} "
          f"{str(ok):>5} {fmt(ev_med, '.2f'):>9} {fmt(ev_diff, '+.2f'):>7}")

print("\n## restore between iterations vs a plain device-to-device copy of the same bytes")
print(f"{'case':14} {'MiB':>8} {'restore GB/s':>12} {'d2d GB/s':>9} {'from device':>11}")
for name, _ in cases:
    rep = load(f"replay_{name}.json")
    if not rep:
        continue
    b = get(rep, "restore", "bytes")
    row = {"bytes": b, "restore_gbps": get(rep, "restore", "gbps"),
           "d2d_gbps": get(rep, "restore", "d2d_gbps"),
           "from_device": get(rep, "restore", "from_device")}
    results.setdefault("restore", {})[name] = row
    print(f"{name:14} {fmt(b / 2**20 if b else None):>8} {fmt(row['restore_gbps']):>12} "
          f"{fmt(row['d2d_gbps']):>9} {str(row['from_device']):>11}")

print("\n## reserve-check (0 exact; 2 relocation)")
rc0, rc1 = status("reserve_check"), status("reserve_conflict")
results["reserve_check"] = {"plain_exit": rc0, "conflict_exit": rc1}
print(f"plain: exit {rc0} (want 0)   first region already mapped: exit {rc1} (want 2)")

print("\n## saxpy candidates (--code-object, --check)")
for v, want in (("ok", 0), ("wrong", 1)):
    rep = load(f"candidate_{v}.json")
    first = first_difference(rep)
    results.setdefault("candidates", {})[v] = {
        "exit": status(f"candidate_{v}"), "check_passed": get(rep, "check", "passed"),
        "first_difference": first}
    print(f"{v:6} exit {status(f'candidate_{v}')} (want {want}) check_passed "
          f"{get(rep, 'check', 'passed')} {json.dumps(first) if first else ''}")

with open(os.path.join(out, "results.json"), "w") as f:
    json.dump(results, f, indent=1, default=str)
