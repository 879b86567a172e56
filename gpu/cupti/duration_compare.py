#!/usr/bin/env python3
"""Kernel durations of duration_probe, as each tool measured them.

usage: duration_compare.py DIR OUT_JSON

DIR holds what gpu/cupti/duration_check.sh left there:
  events_plain.txt   duration_probe events, no recorder ("phase round kernel ns")
  events_rec.txt     duration_probe events, under the recorder
  rec_events.db      the recorder's database of that run
  rec_alone.db       the recorder's database of `duration_probe` without events
  rec_serial.db      the same with ROCM_PERF_CUPTI_KERNELS=serial
  ncu.csv            ncu --csv --metrics gpu__time_duration.sum of duration_probe
Prints a Markdown table of medians over rounds 1-5 (round 0 is the warm-up)
per phase and kernel, and the recorder's against ncu's; writes the numbers to
OUT_JSON.
"""
import csv
import json
import os
import sqlite3
import statistics
import sys

PHASES = ("b2b", "iso")
KERNELS = ("saxpy", "copy", "scale")
ROUNDS = 6  # round 0 is the warm-up


def launch_keys():
    return [(p, r, k) for p in PHASES for r in range(ROUNDS) for k in KERNELS]


def from_events(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[0] in PHASES:
                out[(parts[0], int(parts[1]), parts[2])] = float(parts[3])
    return out


def from_db(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT name, end - start FROM kernels ORDER BY start").fetchall()
    db.close()
    keys = launch_keys()
    if len(rows) != len(keys):
        raise SystemExit(f"{path}: {len(rows)} kernels, expected {len(keys)}")
    out = {}
    for key, (name, dur) in zip(keys, rows):
        if not name.startswith(key[2]):
            raise SystemExit(f"{path}: launch {key} is '{name}'")
        out[key] = float(dur)
    return out


def from_ncu(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]
    rows = [r for r in csv.DictReader(lines) if r["Metric Name"] == "gpu__time_duration.sum"]
    rows.sort(key=lambda r: int(r["ID"]))
    keys = launch_keys()
    if len(rows) != len(keys):
        raise SystemExit(f"{path}: {len(rows)} kernels, expected {len(keys)}")
    return {key: float(r["Metric Value"].replace(",", "")) for key, r in zip(keys, rows)}


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    d = argv[1]
    sources = {
        "events_plain": lambda: from_events(os.path.join(d, "events_plain.txt")),
        "events_under_recorder": lambda: from_events(os.path.join(d, "events_rec.txt")),
        "recorder_with_events": lambda: from_db(os.path.join(d, "rec_events.db")),
        "recorder_alone": lambda: from_db(os.path.join(d, "rec_alone.db")),
        "recorder_serial": lambda: from_db(os.path.join(d, "rec_serial.db")),
        "ncu": lambda: from_ncu(os.path.join(d, "ncu.csv")),
    }
    data = {}
    for name, load in sources.items():
        try:
            data[name] = load()
        except (OSError, SystemExit, KeyError, ValueError, sqlite3.Error) as e:
            print(f"{name}: not available ({e})")
    table = {}
    cols = [c for c in sources if c in data]
    ratios = [c for c in ("recorder_alone", "recorder_serial") if c in data and "ncu" in data]
    print("| phase | kernel | " + " | ".join(cols + [f"{c} / ncu" for c in ratios]) + " |")
    print("| --- | --- |" + " ---: |" * (len(cols) + len(ratios)))
    for p in PHASES:
        for k in KERNELS:
            row = {}
            for c in cols:
                vals = [data[c][(p, r, k)] for r in range(1, ROUNDS) if (p, r, k) in data[c]]
                row[c] = statistics.median(vals) if vals else None
            for c in ratios:
                row[f"{c}_over_ncu"] = row[c] / row["ncu"] if row[c] and row["ncu"] else None
            table[f"{p}/{k}"] = row
            cells = ["-" if row[c] is None else f"{row[c]:.0f}" for c in cols]
            cells += ["-" if row[f"{c}_over_ncu"] is None else f"{row[f'{c}_over_ncu']:.4f}"
                      for c in ratios]
            print(f"| {p} | {k} | " + " | ".join(cells) + " |")
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
