#!/usr/bin/python3
"""gpu/llm/summary.py KEEP_DIR OUT_DIR: the table of gpu/llm/check.sh and results.json.

KEEP_DIR holds one directory per run (six, shift) with junit.xml, optimize-log.json, the
stand-in server's request log (NAME.requests.jsonl) and the command's output
(NAME.out, NAME.err, NAME.exit).  Each expectation is checked and reported as pass/FAIL.
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

keep, out = sys.argv[1], sys.argv[2]
results = {"runs": {}, "checks": []}


def load(path, kind):
    try:
        if kind == "json":
            with open(path) as f:
                return json.load(f)
        if kind == "jsonl":
            with open(path) as f:
                return [json.loads(line) for line in f if line.strip()]
        if kind == "xml":
            return ET.parse(path).getroot()
        with open(path) as f:
            return f.read()
    except (OSError, ValueError, ET.ParseError):
        return None


def check(name, ok, detail=""):
    results["checks"].append({"check": name, "pass": bool(ok), "detail": detail})
    print(f"{'pass' if ok else 'FAIL'}  {name}{': ' + detail if detail else ''}")


def run(name):
    d = os.path.join(keep, name)
    log = load(os.path.join(d, "optimize-log.json"), "json") or {}
    reqs = load(os.path.join(d, name + ".requests.jsonl"), "jsonl") or []
    cands = log.get("candidates", [])
    r = {"exit": (load(os.path.join(d, name + ".exit"), "text") or "?").strip(),
         "requests": len(reqs), "candidates": []}
    print(f"\n== {name}: exit {r['exit']}, {len(reqs)} requests, {len(cands)} candidates")
    print(f"{'candidate':40} {'kernel':12} {'decision':17} {'speedup (95% CI)':22} seconds")
    for c in cands:
        ci = c.get("speedup_ci") or [None, None]
        sp = c.get("speedup")
        text = f"{sp:.3f} ({ci[0]:.3f}-{ci[1]:.3f})" if sp is not None and None not in ci else "-"
        print(f"{c['id'][:40]:40} {c['kernel'][:12]:12} {c['decision']:17} {text:22} "
              f"{c.get('seconds', 0):.1f}")
        r["candidates"].append({k: c.get(k) for k in ("id", "kernel", "decision", "message",
                                                      "speedup", "speedup_ci", "commit",
                                                      "seconds")})
    prompts = [q["body"]["messages"][-1]["content"] for q in reqs]
    r["prompts_with_feedback"] = [
        i + 2 for i, c in enumerate(cands[:-1])
        if i + 1 < len(prompts) and f"verdict `{c['decision']}`" in prompts[i + 1]]
    r["err_tail"] = (load(os.path.join(d, name + ".err"), "text") or "")[-4000:]
    r["out"] = load(os.path.join(d, name + ".out"), "text") or ""
    results["runs"][name] = r
    return r, cands, prompts


six, cands, prompts = run("six")
got = [c["decision"] for c in cands]
check("six: exit 0", six["exit"] == "0")
check("six: verdicts build, repair (not-significant or slower), signature, wrong-result x2, "
      "slower, accepted",
      len(got) == 7 and got[0] == "build" and got[1] in ("not-significant", "slower") and
      got[2:] == ["signature", "wrong-result", "wrong-result", "slower", "accepted"], str(got))
acc = [c for c in cands if c["decision"] == "accepted"]
check("six: only the faster kernel accepted and committed",
      len(acc) == 1 and acc[0].get("commit", "").startswith("rocm-perf/opt/saxpy/"),
      acc[0].get("commit", "") if acc else "none")
if acc:
    lo = (acc[0].get("speedup_ci") or [0])[0]
    check("six: measured speedup with its CI above 1.02", lo and lo > 1.02,
          f"{acc[0].get('speedup'):.3f}x, CI low {lo:.3f}")
check("six: each failure's verdict in the next request",
      six["prompts_with_feedback"] == list(range(2, len(cands) + 1)),
      str(six["prompts_with_feedback"]))


def section(prompt, title):
    """The text of a `## title` section of a prompt."""
    part = prompt.split(f"## {title}\n", 1)
    return part[1].split("\n## ", 1)[0].strip() if len(part) == 2 else ""


first = prompts[0] if prompts else ""
roof, neck = section(first, "Roofline"), section(first, "Bottleneck")
check("six: the first prompt carries the counter profile's roofline and bottleneck "
      "(--analysis)",
      "Measured on the original kernel" in roof and "Not available" not in roof and
      "Measured on the original kernel" in neck and "Not available" not in neck,
      (roof[:200] + " | " + neck[:200]).replace("\n", " "))

shift, cands, prompts = run("shift")
got = [(c["kernel"], c["decision"]) for c in cands]
check("shift: exit 0", shift["exit"] == "0")
check("shift: gather accepted, then scale_rows", [k for k, _ in got] == ["gather", "scale_rows"],
      str(got))
check("shift: the loop said the dominance shifted and retargeted",
      "retargeting to scale_rows" in shift["err_tail"] or "retargeted 1 time" in shift["out"])
check("shift: the second prompt asks for scale_rows",
      len(prompts) > 1 and "Make the kernel `scale_rows`" in prompts[1])

key = load(os.path.join(out, "key.txt"), "text") or ""
check("the API key appears nowhere", key.startswith("key leaked: no"), key.strip())
branches = load(os.path.join(out, "branches.txt"), "text") or ""
check("the checkout is untouched", "checkout untouched: yes" in branches)
with open(os.path.join(out, "results.json"), "w") as f:
    json.dump(results, f, indent=1)
passed = sum(c["pass"] for c in results["checks"])
print(f"\n{passed}/{len(results['checks'])} checks pass")
sys.exit(0 if passed == len(results["checks"]) else 1)
