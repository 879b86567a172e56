#!/usr/bin/python3
"""Checks of one two_streams dag.json (gpu/dag/host_sync.sh).

usage: check_host_sync.py legacy|per-thread DAG_JSON
Prints one line per check ("ok ..." or "FAIL ..."); exit 1 if any failed.
"""
import json
import sys


def main(argv):
    mode, path = argv[1], argv[2]
    with open(path, encoding="utf-8") as f:
        dag = json.load(f)
    edges, sync = dag["edges"], dag["sync"]
    kernels = sorted({s["name"] for s in dag["critical_path"] if s["kind"] == "kernel"})
    checks = [
        ("5 event waits", edges["event_wait"] == 5),
        ("nothing inferred", edges["inferred"] == 0),
        ("blocking calls seen", sync["blocking_calls"] >= 16),
        ("none unresolved or dropped",
         sync["blocking_unresolved"] == 0 and sync["host_edges_dropped"] == 0),
        ("both kernels on the critical path",
         kernels == ["consume(float const*, float*, int)", "produce(float*, int, int)"]),
        ("produce dominates", dag["dominant_symbol"] == "produce(float*, int, int)"),
    ]
    if mode == "legacy":
        checks += [
            ("one legacy default lane", sync["legacy_default_lanes"] == 1),
            ("no per-thread lane", sync["per_thread_default_lanes"] == 0),
            ("default-stream barriers", edges["default_stream"] > 0),
        ]
    else:
        checks += [
            ("no legacy default lane", sync["legacy_default_lanes"] == 0),
            ("one per-thread lane", sync["per_thread_default_lanes"] == 1),
            ("no default-stream barriers", edges["default_stream"] == 0),
            ("host edges carry the order", edges["host_sync"] >= 10),
        ]
    bad = 0
    for name, good in checks:
        print(f"{'ok' if good else 'FAIL'} {mode}: {name}")
        bad += not good
    print(f"{mode}: edges {edges}, sync {sync}, critical path {dag['critical_path_ns']} ns, "
          f"dominant {dag['dominant_symbol']} {dag['dominant_fraction']:.4f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
