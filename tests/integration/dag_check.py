#!/usr/bin/python3
"""CLI checks of the critical-path DAG (dag.json, rocm-perf report).

usage:
  dag_check.py analyze ROCM_PERF DB OUTDIR SCHEMA VALIDATOR [--event-waits N | --min-event-waits N]
               [--inferred N] [--unresolved N] [--host-sync N] [--default-stream N]
               [--dominant NAME] [--path-kernels NAME|NAME...]
      rocm-perf analyze DB --out OUTDIR must exit 0 and write OUTDIR/dag.json that
      validates against SCHEMA, with the given edge counts, dominant kernel and
      the set of kernels on the critical path.
  dag_check.py generated ROCM_PERF GEN DB OUTDIR SCHEMA VALIDATOR
      rpl_gen_rocpd writes DB (it prints how many waits it wrote); analyze --out
      must find every one of them as an event_wait edge and infer nothing.
  dag_check.py hip-args ROCM_PERF GEN DIR SCHEMA VALIDATOR
      the same generated run twice, with a stream argument per launch (the
      stream's id as handle) and with every launch parameter as rocprofv3
      writes them (--hip-args, pointer handles): the second database must hold
      five or six arguments per launch, every wait must resolve (through the
      launches' stream arguments) and analyze --out, which keeps only the
      arguments the DAG reads, must give the same dag.json for both, inputs
      aside.
  dag_check.py report ROCM_PERF DIR XMLLINT
      rocm-perf report DIR --perfetto --svg: the summary names the critical path,
      the Perfetto file is trace-event JSON (one named track per lane, complete
      events, paired flow events, a critical-path track), the SVG is well-formed
      XML with one label per lane.
Exit 0 when every check holds, 1 with the reasons otherwise.
"""
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print(f"dag_check: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect:
        fail(f"{' '.join(cmd)} exited {p.returncode}, expected {expect}:\n{p.stderr}")
    return p.stdout


def analyze(rocm_perf, db, outdir, schema, validator):
    run([rocm_perf, "analyze", db, "--out", outdir, "-q"])
    path = os.path.join(outdir, "dag.json")
    run([sys.executable, validator, schema, path])
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc["inputs"] != [os.path.realpath(db)]:
        fail(f"inputs {doc['inputs']} do not name {db}")
    if doc["nodes_on_path"] < 1 or doc["critical_path_ns"] <= 0:
        fail("empty critical path")
    return doc


def check_counts(doc, args):
    edges = doc["edges"]
    it = iter(args)
    for opt in it:
        value = next(it)
        if opt == "--dominant":
            if doc["dominant_symbol"] != value:
                fail(f"dominant {doc['dominant_symbol']!r}, expected {value!r}")
            continue
        if opt == "--path-kernels":
            on_path = sorted({s["name"] for s in doc["critical_path"] if s["kind"] == "kernel"})
            want_names = sorted(value.split("|"))
            if on_path != want_names:
                fail(f"kernels on the critical path {on_path}, expected {want_names}")
            continue
        want = int(value)
        if opt == "--event-waits" and edges["event_wait"] != want:
            fail(f"event_wait edges {edges['event_wait']}, expected {want}")
        elif opt == "--min-event-waits" and edges["event_wait"] < want:
            fail(f"event_wait edges {edges['event_wait']}, expected at least {want}")
        elif opt == "--inferred" and edges["inferred"] != want:
            fail(f"inferred edges {edges['inferred']}, expected {want}")
        elif opt == "--unresolved" and doc["sync"]["waits_unresolved"] != want:
            fail(f"unresolved waits {doc['sync']['waits_unresolved']}, expected {want}")
        elif opt == "--host-sync" and edges["host_sync"] != want:
            fail(f"host_sync edges {edges['host_sync']}, expected {want}")
        elif opt == "--default-stream" and edges["default_stream"] != want:
            fail(f"default_stream edges {edges['default_stream']}, expected {want}")
        elif opt not in ("--event-waits", "--min-event-waits", "--inferred", "--unresolved",
                         "--host-sync", "--default-stream"):
            fail(f"unknown option {opt}")


def generated(rocm_perf, gen, db, outdir, schema, validator):
    out = run([gen, "--dispatches", "3000", "--queues", "4", "--copies", "300", "--kernels",
               "12", "--seed", "7", "--waits-every", "50", db])
    m = re.search(r"(\d+) event waits", out)
    if not m or int(m.group(1)) < 10:
        fail(f"generator output without waits: {out!r}")
    doc = analyze(rocm_perf, db, outdir, schema, validator)
    waits = int(m.group(1))
    if doc["edges"]["event_wait"] != waits or doc["edges"]["inferred"] != 0:
        fail(f"edges {doc['edges']}, expected {waits} event waits and none inferred")
    if doc["sync"]["waits_unresolved"] != 0 or doc["sync"]["regions"] != 2 * waits:
        fail(f"sync {doc['sync']}")
    if doc["nodes"] != {"total": 3300, "dispatches": 3000, "copies": 300}:
        fail(f"nodes {doc['nodes']}")


def hip_args(rocm_perf, gen, d, schema, validator):
    import sqlite3
    docs = []
    for name, extra in (("stream", []), ("all", ["--hip-args"])):
        db = os.path.join(d, f"{name}.db")
        if os.path.exists(db):
            os.remove(db)
        run([gen, "--dispatches", "2000", "--queues", "4", "--copies", "200", "--kernels", "12",
             "--seed", "5", "--waits-every", "40", "--api", *extra, db])
        con = sqlite3.connect(db)
        args = con.execute("SELECT count(*) FROM rocpd_arg").fetchone()[0]
        regions = con.execute("SELECT count(*) FROM rocpd_region").fetchone()[0]
        con.close()
        if name == "all" and args < 5 * 2200:
            fail(f"--hip-args wrote {args} arguments for {regions} regions")
        doc = analyze(rocm_perf, db, os.path.join(d, name), schema, validator)
        doc.pop("inputs", None)
        docs.append(doc)
    # Pointer handles name a stream only through the launches' stream arguments.
    for doc in docs:
        if doc["sync"]["waits_unresolved"] != 0 or doc["edges"]["event_wait"] == 0:
            fail(f"waits not resolved through the launches: {doc['sync']}, {doc['edges']}")
    if docs[0] != docs[1]:
        fail("dag.json differs between the stream-only and the every-parameter trace")


def report(rocm_perf, d, xmllint):
    with open(os.path.join(d, "dag.json"), encoding="utf-8") as f:
        dag = json.load(f)
    pf, svg = os.path.join(d, "trace.perfetto.json"), os.path.join(d, "timeline.svg")
    out = run([rocm_perf, "report", d, "--perfetto", pf, "--svg", svg])
    if not out.startswith("critical path: "):
        fail(f"summary: {out!r}")
    with open(pf, encoding="utf-8") as f:
        trace = json.load(f)
    ev = trace["traceEvents"]
    if not isinstance(ev, list) or not ev:
        fail("no traceEvents")
    threads = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
    names = sorted(e["args"]["name"] for e in threads)
    lanes = sorted(l["name"] for l in dag["lanes"])
    if [n for n in names if not n.startswith("critical path")] != lanes:
        fail(f"thread names {names}, lanes {lanes}")
    slices = [e for e in ev if e["ph"] == "X"]
    if len(slices) != dag["nodes"]["total"] + dag["nodes_on_path"]:
        fail(f"{len(slices)} complete events for {dag['nodes']['total']} nodes")
    for e in slices:
        if not (isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and e["name"]):
            fail(f"bad complete event {e}")
    starts = sorted(e["id"] for e in ev if e["ph"] == "s")
    ends = sorted(e["id"] for e in ev if e["ph"] == "f" and e.get("bp") == "e")
    cross = dag["edges"]["total"] - dag["edges"]["program_order"]
    if starts != ends or len(starts) != cross:
        fail(f"{len(starts)} flow starts, {len(ends)} flow ends, {cross} cross-lane edges")
    critical = [e for e in slices if e["args"]["critical"]]
    if len(critical) != 2 * dag["nodes_on_path"]:
        fail(f"{len(critical)} critical slices for a path of {dag['nodes_on_path']}")
    run([xmllint, "--noout", svg])
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    for lane in lanes:
        if f">{lane}<" not in text and f">{lane} (pid" not in text:
            fail(f"lane {lane} has no label in the SVG")
    if "critical path" not in text:
        fail("SVG has no legend")


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    cmd = argv[1]
    if cmd == "analyze" and len(argv) >= 7:
        check_counts(analyze(*argv[2:7]), argv[7:])
    elif cmd == "generated" and len(argv) == 8:
        generated(*argv[2:8])
    elif cmd == "hip-args" and len(argv) == 7:
        os.makedirs(argv[4], exist_ok=True)
        hip_args(*argv[2:7])
    elif cmd == "report" and len(argv) == 5:
        report(*argv[2:5])
    else:
        fail(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
