#!/usr/bin/env python3
"""Summarise the recorder's databases and compare them with ncu.

usage: summarize.py NAME=DB[,NCU_CSV...] ...

For every database: the kernels (name, grid in blocks, block, registers,
static/dynamic shared memory, calls, median duration), the median of ncu's
gpu__time_duration.sum for the same kernel and the ratio, memory copies by
kind, the event-record and stream-wait regions with their arguments, and
the counters recorded; for NAME ending in "_counters", every counter that
an ncu CSV (--print-units base) also has, per kernel, as medians and their
ratio.  Reads the rocpd views the writer creates.
"""
import csv
import os
import sqlite3
import statistics
import sys


UNIT_SCALE = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
              "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
              "GB": 1e9}


def ncu_metrics(path):
    """(kernel name, metric) -> list of values (base units) from `ncu --csv`."""
    out = {}
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # skip ncu's own log lines
    for row in csv.DictReader(lines):
        metric = row.get("Metric Name")
        if not metric:
            continue
        try:
            value = float(row["Metric Value"].replace(",", ""))
        except ValueError:
            continue
        value *= UNIT_SCALE.get(row.get("Metric Unit", ""), 1)
        out.setdefault((row["Kernel Name"].split("(")[0], metric), []).append(value)
    return out


def ncu_durations(path):
    """Kernel name -> list of gpu__time_duration.sum (ns) from `ncu --csv`."""
    return {k: v for (k, m), v in ncu_metrics(path).items() if m == "gpu__time_duration.sum"}


def compare_counters(con, ncu_csv, tag):
    """Per kernel and metric: median of our counter values vs ncu's, and the ratio."""
    theirs = ncu_metrics(ncu_csv)
    ours = {}
    for kname, metric, val in con.execute(
            "SELECT s.display_name, i.name, e.value FROM rocpd_pmc_event e"
            " JOIN rocpd_info_pmc i ON i.id = e.pmc_id"
            " JOIN rocpd_kernel_dispatch d ON d.event_id = e.event_id"
            " JOIN rocpd_info_kernel_symbol s ON s.id = d.kernel_id"):
        ours.setdefault((short(kname), metric), []).append(val)
    print(f"counters vs ncu ({tag}): kernel | metric | n ours | median ours | n ncu |"
          " median ncu | ours/ncu")
    for key in sorted(ours):
        if key not in theirs:
            continue
        a, b = statistics.median(ours[key]), statistics.median(theirs[key])
        ratio = f"{a / b:.4f}" if b else ("equal" if a == b else "-")
        print(f"{key[0]} | {key[1]} | {len(ours[key])} | {a:.6g} | {len(theirs[key])} | {b:.6g}"
              f" | {ratio}")


def short(name):
    return name.split("(")[0]


def summarise(label, db, ncu_csv):
    if not os.path.isfile(db):
        print(f"== {label}: no database {db}")
        return
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    q = con.execute
    print(f"== {label}: {db}")
    agent = q("SELECT name, product_name, extdata FROM rocpd_info_agent WHERE type='GPU'").fetchone()
    if agent:
        print(f"GPU agent: {agent[0]} {agent[1]}")
        print(f"  extdata: {agent[2]}")
    ncu = ncu_durations(ncu_csv) if ncu_csv else {}
    rows = q(
        "SELECT s.display_name, d.grid_size_x, d.grid_size_y, d.grid_size_z, d.workgroup_size_x,"
        " d.workgroup_size_y, d.workgroup_size_z, s.arch_vgpr_count, s.group_segment_size,"
        " d.group_segment_size, d.\"end\" - d.start, d.stream_id FROM rocpd_kernel_dispatch d"
        " JOIN rocpd_info_kernel_symbol s ON s.id = d.kernel_id ORDER BY d.start").fetchall()
    kernels = {}
    for r in rows:
        kernels.setdefault(r[0], []).append(r)
    print("kernel | grid (blocks) | block | regs | static smem | dyn smem | calls | "
          "median ns (ours) | median ns (ncu) | ours/ncu")
    for name, rs in kernels.items():
        r = rs[0]
        blocks = [r[1] // max(r[4], 1), r[2] // max(r[5], 1), r[3] // max(r[6], 1)]
        ours = statistics.median(x[10] for x in rs)
        theirs = ncu.get(short(name))
        med = statistics.median(theirs) if theirs else None
        ratio = f"{ours / med:.4f}" if med else "-"
        print(f"{name} | {blocks} | {[r[4], r[5], r[6]]} | {r[7]} | {r[8]} | {r[9]} | {len(rs)} | "
              f"{ours:.0f} | {med if med is None else f'{med:.0f}'} | {ratio}")
        print(f"  durations ns (ours): {[x[10] for x in rs]}")
        if theirs:
            print(f"  durations ns (ncu):  {[round(x) for x in theirs]}")
    for name, n, size, dur in q(
            "SELECT st.string, count(*), sum(m.size), sum(m.\"end\" - m.start) FROM rocpd_memory_copy m"
            " JOIN rocpd_string st ON st.id = m.name_id GROUP BY st.string"):
        print(f"copy {name}: {n} ops, {size} bytes, {dur} ns")
    for name, n in q("SELECT st.string, count(*) FROM rocpd_region r JOIN rocpd_string st"
                     " ON st.id = r.name_id GROUP BY st.string ORDER BY 2 DESC LIMIT 12"):
        print(f"region {name}: {n}")
    for name, args in q(
            "SELECT st.string, group_concat(a.name || '=' || a.value, ' ') FROM rocpd_region r"
            " JOIN rocpd_string st ON st.id = r.name_id JOIN rocpd_arg a ON a.event_id = r.event_id"
            " WHERE st.string LIKE '%EventRecord%' OR st.string LIKE '%StreamWaitEvent%'"
            " GROUP BY r.id ORDER BY r.start LIMIT 6"):
        print(f"sync {name}: {args}")
    counters = q("SELECT i.name, count(*), avg(e.value) FROM rocpd_pmc_event e"
                 " JOIN rocpd_info_pmc i ON i.id = e.pmc_id GROUP BY i.name").fetchall()
    for name, n, avg in counters:
        print(f"counter {name}: {n} values, mean {avg:.6g}")
    if counters:
        for kname, metric, val in q(
                "SELECT s.display_name, i.name, e.value FROM rocpd_pmc_event e"
                " JOIN rocpd_info_pmc i ON i.id = e.pmc_id"
                " JOIN rocpd_kernel_dispatch d ON d.event_id = e.event_id"
                " JOIN rocpd_info_kernel_symbol s ON s.id = d.kernel_id"
                " WHERE i.name IN ('gpu__time_duration.sum', 'dram__bytes_read.sum',"
                " 'dram__bytes_write.sum', 'smsp__sass_thread_inst_executed_op_ffma_pred_on.sum')"
                " ORDER BY d.start LIMIT 16"):
            print(f"  {short(kname)} {metric} = {val:.6g}")
    con.close()


def main(argv):
    for spec in argv[1:]:
        label, _, rest = spec.partition("=")
        db, _, ncu_csvs = rest.partition(",")
        csvs = [c for c in ncu_csvs.split(",") if c and os.path.isfile(c)]
        try:
            summarise(label, db, csvs[0] if csvs else None)
            if os.path.isfile(db) and label.endswith("_counters"):
                con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
                for c in csvs:
                    compare_counters(con, c, os.path.basename(c))
                con.close()
        except (sqlite3.Error, OSError, KeyError, ValueError) as e:
            print(f"== {label}: cannot summarise {db}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
