#!/usr/bin/python3
"""The SVG timeline of `rocm-perf report DIR --svg`: valid, rendered, no text overlapping.

usage: check_timeline.py ROCM_PERF DB WORKDIR XMLLINT RSVG_CONVERT [CASE]

analyze DB --out WORKDIR/out, then report it with --svg WORKDIR/timeline.svg, which must
be well-formed (xmllint) and render to WORKDIR/timeline.png (kept to look at) with every
text clear of every other and inside the chart (tests/tools/check_svg.py --labels-clear).
Besides: each lane has its label (its name, or the name elided in the middle); each label
on a bar lies inside that bar (estimated as check_svg.py does) and no hop of the critical
path crosses it.  CASE adds what one fixture must show:
  many_lanes   the 30 ms kernel named in full, 400 ns kernels unlabelled, the long stream
               name and the dominant kernel shortened, a namespaced kernel by its function
               name where its qualified name does not fit, 20 kernels back to back as
               one bar labelled "NAME ×20"
  two_streams  the 5 ms device-to-host copies labelled, the kernels too short for a label
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import check_svg  # noqa: E402  (the same box estimate as the overlap check)

NS = check_svg.NS
ELLIPSIS = "\u2026"


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}")
    return p


def check(cond, what):
    if not cond:
        sys.exit("FAILED: " + what)


def hop_crosses(line, box):
    """The segment passes through the box (sampled at 0.25 px: the hops are straight)."""
    x1, y1, x2, y2 = line
    steps = int(max(abs(x2 - x1), abs(y2 - y1)) * 4) + 1
    for i in range(steps + 1):
        x, y = x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps
        if box[0] < x < box[2] and box[1] < y < box[3]:
            return True
    return False


def bar_checks(root):
    """Bar labels inside their bars and clear of the hops; returns the labels."""
    bars, hops, labels = [], [], []
    for g in root.iter(NS + "g"):
        if g.get("class") == "bar-labels":
            labels = [(s, b) for s, b in check_svg.text_boxes(g)]
        elif g.get("stroke") == "#d62728":
            hops = [tuple(float(l.get(k)) for k in ("x1", "y1", "x2", "y2"))
                    for l in g.iter(NS + "line")]
        elif g.get("fill") in ("#8fa9c9", "#d62728"):
            bars += [tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
                     for r in g.iter(NS + "rect")]
    for s, b in labels:
        check(any(x - 0.01 <= b[0] and b[2] <= x + w + 0.01 and y <= b[1] and b[3] <= y + h
                  for x, y, w, h in bars), f"bar label '{s}' {b} is not inside a bar")
        for line in hops:
            check(not hop_crosses(line, b), f"a hop {line} crosses bar label '{s}'")
    return [s for s, _ in labels]


def main(argv):
    if len(argv) < 6:
        sys.exit(__doc__)
    rocm_perf, db, work, xmllint, rsvg = argv[1:6]
    case = argv[6] if len(argv) > 6 else ""
    out, svg = os.path.join(work, "out"), os.path.join(work, "timeline.svg")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    run([rocm_perf, "analyze", db, "--out", out, "-q"])
    run([rocm_perf, "report", out, "--svg", svg, "-q"])
    run([xmllint, "--noout", svg])
    print(run([sys.executable, os.path.join(HERE, "..", "tools", "check_svg.py"), rsvg, svg,
               os.path.join(work, "timeline.png"), "--labels-clear"]).stdout, end="")
    with open(os.path.join(out, "dag.json"), encoding="utf-8") as f:
        dag = json.load(f)
    root = check_svg.ET.parse(svg).getroot()
    texts = ["".join(t.itertext()) for t in root.iter(NS + "text")]
    for lane in dag["lanes"]:
        name = lane["name"]
        check(any(t == name or t.startswith(name + " (pid") or
                  (ELLIPSIS in t and name.startswith(t.split(ELLIPSIS)[0]) and
                   name.endswith(t.split(ELLIPSIS)[1].split(" (pid")[0])) for t in texts),
              f"lane '{name}' has no label")
    labels = bar_checks(root)
    title = texts[0]
    if case == "many_lanes":
        gemm = ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4>"
                "(cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4::Params)")
        check(gemm in labels, "the 30 ms kernel is named in full")
        check(not any(l.startswith("tiny") or l.startswith("t" + ELLIPSIS) for l in labels),
              "400 ns kernels have no label")
        check("softmax" in labels, "llm::kernel::softmax by its function name")
        check("rms_norm_f32_v2(float const*, float*, int, float) \u00d720" in labels,
              "20 kernels back to back: one bar, its name and count")
        check(any(l.startswith("flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128")
                  and ELLIPSIS in l for l in labels), "flash kernel: the template arguments that fit")
        check(any(t.startswith("Stream 12 of") and ELLIPSIS in t for t in texts),
              "the long stream name is elided")
        check("; dominant: cutlass::Kernel<cutlass_80" in title and ELLIPSIS in title and
              title.endswith("(89.0%)"), f"title: {title}")
        check(len(labels) >= 30, f"{len(labels)} bar labels")
    elif case == "two_streams":
        check(labels.count("D2H copy") + labels.count("MEMORY_COPY_DEVICE_TO_HOST") >= 5,
              f"device-to-host copies labelled: {labels}")
        check(not any(l.startswith("produce") or l.startswith("consume") for l in labels),
              "150 us kernels of a 62 ms span have no label")
    elif case:
        sys.exit(f"unknown case {case}")
    print(f"ok: {svg}: {len(labels)} bar labels inside their bars, clear of the hops")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
