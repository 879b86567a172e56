#!/usr/bin/python3
"""Table of the optimize GPU check (gpu/optimize/check.sh): per run and candidate the
decision, the speedup with its CI, and the time per candidate split into build,
correctness (signature, static, replay, test), measurement and whole-app profile; then
the acceptance list with PASS/FAIL.  Writes RESULTS (JSON).

usage: summary.py LOGS_DIR RESULTS
"""
import json
import os
import sys

out, results_path = sys.argv[1:3]
# run -> [(kernel, what is expected, predicate on the decision)]
EXPECT = {
    "rules": [("gather_sum", "unroll accepted", lambda d: d == "accepted"),
              ("stream_scale", "honest rejection", lambda d: d not in ("accepted", None))],
    "hand": [("gather_sum", "hand-optimised candidate accepted", lambda d: d == "accepted")],
    "wrong": [("saxpy", "wrong candidate rejected by replay",
               lambda d: d == "wrong-result")],
    # An A/A pair's CI holds 1: not significant ("slower" needs the whole CI below 1).
    "same": [("saxpy", "A/A candidate not significant", lambda d: d == "not-significant")],
}


def steps_s(c, names):
    return sum(c["steps"][n]["seconds"] or 0 for n in names if n in c["steps"])


results = {"runs": {}, "checks": []}
print(f"{'run':6} {'candidate':34} {'kernel':13} {'decision':16} {'speedup (CI)':22} "
      f"{'build':>6} {'correct':>7} {'measure':>7} {'app':>5} {'total':>6}")
for run in EXPECT:
    path = os.path.join(out, run, "optimize-log.json")
    try:
        with open(path) as f:
            log = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{run:6} no log: {e}")
        results["runs"][run] = None
        continue
    results["runs"][run] = log
    for c in log["candidates"]:
        sp = c["speedup"]
        lo, hi = c["speedup_ci"]
        spt = f"{sp:.3f} ({lo:.3f}-{hi:.3f})" if sp is not None else "-"
        print(f"{run:6} {c['id'][:34]:34} {c['kernel'][:13]:13} {c['decision']:16} {spt:22} "
              f"{steps_s(c, ['build']):6.1f} "
              f"{steps_s(c, ['signature', 'static', 'replay', 'test']):7.1f} "
              f"{steps_s(c, ['measure']):7.1f} {steps_s(c, ['app']):5.1f} "
              f"{c['seconds'] or 0:6.1f}")
        if c["decision"] != "accepted":
            print(f"{'':6} -> {c['message'][:150]}")
print()
ok_all = True
for run, items in EXPECT.items():
    log = results["runs"].get(run)
    for kernel, what, pred in items:
        decisions = [c["decision"] for c in (log or {}).get("candidates", [])
                     if c["kernel"] == kernel]
        ok = bool(decisions) and any(pred(d) for d in decisions)
        ok_all &= ok
        results["checks"].append({"run": run, "kernel": kernel, "expect": what,
                                  "decisions": decisions, "pass": ok})
        print(f"{'PASS' if ok else 'FAIL'}: {run}: {kernel}: {what} (decisions {decisions})")
# The rules run's kernels come from the profile's ranking, not from the source's order.
log = results["runs"].get("rules") or {}
ranked = [r["kernel"] for r in log.get("ranked", [])]
ok = "gather_sum" in ranked and "stream_scale" in ranked
ok_all &= ok
results["checks"].append({"run": "rules", "expect": "kernels ranked from the profile",
                          "ranked": ranked, "ranked_by": log.get("ranked_by"), "pass": ok})
print(f"{'PASS' if ok else 'FAIL'}: rules: kernels ranked from the profile "
      f"(ranked {ranked}, by {log.get('ranked_by')})")
with open(results_path, "w") as f:
    json.dump(results, f, indent=1)
sys.exit(0 if ok_all else 1)
