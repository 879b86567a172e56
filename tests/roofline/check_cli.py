#!/usr/bin/python3
"""CLI checks of the roofline analysis on fixture databases.

usage: check_cli.py CASE ROCM_PERF DB SCHEMAS WORKDIR [XMLLINT [RSVG_CONVERT]]

CASE is one of:
  outputs   analyze --out on roofline_cases: schemas, formulas, classes, priorities
  att       the same with --att: features attached, bad folders skipped, another run's
            folder and PC-sampling output refused
  ceilings  --ceilings FILE replaces the product table; a bad file exits 2
  missing   a trace without roofline counters: roofline null with a reason, exit 0
  svg       report DIR --roofline-svg FILE: well-formed (xmllint), every kernel labelled,
            rendered to PNG (rsvg-convert) with labels clear of each other, axes fitted
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MIB8 = 8 * 1024 * 1024


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}, expected {expect}\n"
                 f"stdout: {p.stdout}\nstderr: {p.stderr}")
    return p


def analyze(rocm_perf, db, out, *extra):
    shutil.rmtree(out, ignore_errors=True)
    run([rocm_perf, "analyze", db, "--out", out, "-q", *extra])
    docs = {}
    for name in ("roofline", "analysis"):
        path = os.path.join(out, name + ".json")
        run([sys.executable, os.path.join(HERE, "..", "tools", "validate_json.py"),
             os.path.join(SCHEMAS, name + ".schema.json"), path])
        with open(path, encoding="utf-8") as f:
            docs[name] = json.load(f)
    return docs


def by_kernel(doc, prefix):
    hits = [k for k in doc["kernels"] if k["kernel"].startswith(prefix)]
    if len(hits) != 1:
        sys.exit(f"expected one kernel starting with '{prefix}', got {len(hits)}")
    return hits[0]


def check(cond, what):
    if not cond:
        sys.exit("FAILED: " + what)


def case_outputs(rocm_perf, db, work):
    docs = analyze(rocm_perf, db, os.path.join(work, "outputs"))
    roof, ana = docs["roofline"], docs["analysis"]
    vc = by_kernel(roof, "vecCopy")
    # MI200 vecCopy, 3 dispatches of 2^20 doubles: about 8 MiB read each (real counters).
    check(abs(vc["roofline"]["hbm_read_bytes"] - 3 * MIB8) < 0.01 * 3 * MIB8, "vecCopy reads")
    check(vc["flops"] == 0 and vc["arithmetic_intensity"] == 0, "vecCopy has no FLOPs")
    check(len(vc["per_dispatch"]) == 3 and not vc["per_dispatch_truncated"], "per dispatch")
    check(all(abs(p["hbm_read_bytes"] - MIB8) < 0.01 * MIB8 for p in vc["per_dispatch"]),
          "every MI200 vecCopy dispatch reads 8 MiB within 1 %")
    check(abs(vc["per_dispatch"][0]["hbm_write_bytes"] - MIB8) < 0.01 * MIB8,
          "the first MI200 vecCopy dispatch writes 8 MiB within 1 %")
    check(vc["bound"] == "memory", "vecCopy is memory-bound")
    check(vc["roofline"]["ceilings_source"] == "product table: MI210", "MI210 ceilings")
    l41 = by_kernel(roof, "__omp_offloading_32_6b6b__QQmain_l41")
    # 64*(ADD + MUL + 2 FMA + TRANS) F64 + the F32 MUL/TRANS, per dispatch, two dispatches.
    check(l41["flops"] == 2 * (2684354560 + 64 * 7296), f"l41 FLOPs {l41['flops']}")
    check(l41["roofline"]["flops_by_precision"]["valu"]["fp64"] == 2 * 2684354560, "FP64 FLOPs")
    check(l41["roofline"]["clamps"] == 1 and "TCC_BUBBLE_sum" in l41["roofline"]["clamp_notes"][0],
          "the cross-pass BUBBLE > RDREQ of dispatch 3 is clamped and reported")
    check(0.5 < l41["arithmetic_intensity"] < 0.55 and l41["bound"] == "memory", "l41 AI")
    check([p["clamps"] for p in l41["per_dispatch"]] == [0, 1], "the clamp is on dispatch 3")
    gemm = by_kernel(roof, "gemm_bf16")
    check(gemm["bound"] == "compute", "gemm is compute-bound")
    check(gemm["roofline"]["flops_by_precision"]["matrix"]["bf16"] == 2 * 4096 ** 3, "MFMA FLOPs")
    nc = by_kernel(roof, "nocount")
    check(nc["roofline"] is None and "not collected" in nc["reason"], "no counters: null + reason")
    classes = {k["kernel"].split("(")[0]: k["bottleneck"] for k in ana["kernels"]}
    check(classes == {"__omp_offloading_32_6b6b__QQmain_l41": "memory_bandwidth",
                      "vecCopy": "memory_bandwidth", "gemm_bf16": "compute",
                      "tiny": "launch_overhead", "nocount": "unknown"}, f"classes {classes}")
    tiny = by_kernel(ana, "tiny")
    check(any("8 workgroups for 304 CUs" in e for e in tiny["evidence"]),
          "the runner-up (grid too small) is in the evidence")
    prios = [p["priority"] for p in ana["priorities"]]
    check(prios == sorted(prios, reverse=True) and ana["priorities"][0]["kernel"].startswith(
        "__omp"), "priorities ordered, l41 first")
    for k in ana["kernels"]:
        if k["priority"] is not None:
            check(abs(k["priority"] - k["headroom"] * k["critical_path_fraction"]) < 1e-9,
                  "priority = headroom x critical-path fraction")
    with open(os.path.join(work, "outputs", "dag.json"), encoding="utf-8") as f:
        dag = json.load(f)
    prio = {p["name"]: p for p in dag["priorities"]}
    s = prio["__omp_offloading_32_6b6b__QQmain_l41"]
    check(s["headroom_source"] == "roofline" and abs(s["headroom"] - l41["headroom"]) < 1e-9,
          "dag.json priorities carry the roofline headroom")
    check(prio["nocount(float*)"]["headroom_source"] == "placeholder", "no counters: placeholder")


def case_att(rocm_perf, db, work):
    att_dir = os.path.join(HERE, "fixtures", "att")
    docs = analyze(rocm_perf, db, os.path.join(work, "att"), "--att", att_dir)
    ana = docs["analysis"]
    check(ana["att"]["folders"] == 3 and ana["att"]["skipped"] == 2 and
          ana["att"]["unmatched"] == 1, f"att summary {ana['att']}")
    l41 = by_kernel(ana, "__omp")
    check(l41["att"] is not None and l41["att"]["stall_fraction"] > 0.5, "l41 ATT stalls")
    check(l41["att"]["instruction_mix"]["vmem"] > 0.3, "l41 VMEM share")
    hot = l41["att"]["hottest"]
    check(0 < len(hot) <= 5 and all(a["latency_cycles"] >= b["latency_cycles"]
                                    for a, b in zip(hot, hot[1:])),
          f"l41 hottest instructions, most latency first: {hot}")
    gemm = by_kernel(ana, "gemm_bf16")
    check(gemm["att"]["instruction_mix"]["mfma"] > 0.4, "gemm MFMA share")
    check(by_kernel(ana, "vecCopy")["att"] is None, "no ATT folder: att null")
    # Dispatch 4 of this trace is the l41 kernel: a softmax folder of dispatch 4 is another
    # run's, and is refused, as is a folder of PC-sampling output; neither writes an analysis.
    for folder, msg in (("att_other_run", "holds kernel '_Z14softmax_kernelPKfPfi' (code.json), "
                         "but dispatch 4 of the trace is '__omp_offloading_32_6b6b__QQmain_l41'"),
                        ("att_pc_sampling", "code.json is PC-sampling output")):
        out = os.path.join(work, folder)
        shutil.rmtree(out, ignore_errors=True)
        p = run([rocm_perf, "analyze", db, "--out", out, "--att",
                 os.path.join(HERE, "fixtures", folder)], expect=2)
        check(msg in p.stderr, f"{folder}: stderr {p.stderr!r}")
        check(not os.path.exists(os.path.join(out, "analysis.json")), f"{folder}: analysis written")


def case_ceilings(rocm_perf, db, work):
    good = os.path.join(work, "ceilings.json")
    with open(good, "w", encoding="utf-8") as f:
        # rocm-amdgpu-bench values of a 104-CU gfx90a (counters.md §2.3), used for every GPU.
        json.dump({"schema_version": "1.0", "device": "MI200 measured", "hbm_gbps": 1389,
                   "valu_gflops": {"fp32": 20942, "fp64": 20273},
                   "matrix_gflops": {"bf16": 170483, "fp16": 164938}}, f)
    run([sys.executable, os.path.join(HERE, "..", "tools", "validate_json.py"),
         os.path.join(SCHEMAS, "ceilings.schema.json"), good])
    roof = analyze(rocm_perf, db, os.path.join(work, "ceil"), "--ceilings", good)["roofline"]
    check([c["source"] for c in roof["ceilings"]] == ["ceilings file: " + good], "one source")
    vc = by_kernel(roof, "vecCopy")
    check(abs(vc["roofline"]["peak_gbps"] - 1389) < 1e-9, "measured HBM roof used")
    bad = os.path.join(work, "bad_ceilings.json")
    with open(bad, "w", encoding="utf-8") as f:
        f.write('{"schema_version": "1.0", "hbm_gbps": "fast"}')
    p = run([rocm_perf, "analyze", db, "--out", os.path.join(work, "ceil_bad"), "--ceilings", bad],
            expect=2)
    check(p.stderr.startswith("rocm-perf: ") and "hbm_gbps" in p.stderr, p.stderr)
    check(not os.path.exists(os.path.join(work, "ceil_bad", "roofline.json")), "no half output")


def case_missing(rocm_perf, db, work):
    docs = analyze(rocm_perf, db, os.path.join(work, "missing"))
    for k in docs["roofline"]["kernels"]:
        check(k["roofline"] is None and "was not collected" in k["reason"], k["kernel"])
        check(k["flops"] is None and k["bound"] is None, "null fields without counters")
    for k in docs["analysis"]["kernels"]:
        check(k["bottleneck"] == "unknown" and "not collected" in k["evidence"][0], k["kernel"])


def top_decade(text):
    """The highest y-axis tick ("1eN", anchored at its end) of a roofline SVG."""
    ticks = re.findall(r'text-anchor="end"[^>]*>1e(-?\d+)<', text)
    return max(int(t) for t in ticks)


def check_chart(svg, png, doc):
    """Renders, labels clear, and no empty decade above the highest roof or point."""
    if RSVG:
        run([sys.executable, os.path.join(HERE, "..", "tools", "check_svg.py"), RSVG, svg, png,
             "--labels-clear"])
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    highest = max([k.get("gflops") or 0 for k in doc["kernels"]] +
                  [v for c in doc["ceilings"] for g in ("valu_gflops", "matrix_gflops")
                   for v in c[g].values() if v])
    top = top_decade(text)
    check(10 ** (top - 1) <= highest * 1.3, f"y axis to 1e{top}: a decade above {highest}")
    return text


def case_svg(rocm_perf, db, work, xmllint):
    out = os.path.join(work, "svg")
    docs = analyze(rocm_perf, db, out)
    svg = os.path.join(work, "roofline.svg")
    run([rocm_perf, "report", out, "--roofline-svg", svg, "-q"])
    run([xmllint, "--noout", svg])
    check_chart(svg, os.path.join(work, "roofline.png"), docs["roofline"])
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    for k in docs["roofline"]["kernels"]:
        label = k["kernel"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        check(label[:40] in text, f"'{k['kernel']}' is labelled")
    check("not placed: nocount" in text, "kernels without a roofline are listed")
    check(text.count(">1e") >= 6, "decade ticks on both axes")
    check("HBM 1638 GB/s (MI210)" in text and "matrix fp16/bf16 1307.4 TFLOP/s" in text,
          "ceiling lines are labelled")
    p = run([rocm_perf, "report", db, "--roofline-svg", svg], expect=2)
    check("analyze --out" in p.stderr, "databases instead of a folder: usage error")
    # An H100 chart (fixtures/h100_chart): VALU fp32 and matrix fp64 share 66.9 TFLOP/s, long
    # and templated kernel names.  Its roofline.json replaces the analysis's.
    with open(os.path.join(HERE, "fixtures", "h100_chart", "roofline.json"), encoding="utf-8") as f:
        h100 = json.load(f)
    shutil.copy(os.path.join(HERE, "fixtures", "h100_chart", "roofline.json"), out)
    svg = os.path.join(work, "h100.svg")
    run([rocm_perf, "report", out, "--roofline-svg", svg, "-q"])
    run([xmllint, "--noout", svg])
    text = check_chart(svg, os.path.join(work, "h100.png"), h100)
    check(text.count("VALU fp32, matrix fp64 66.9 TFLOP/s") == 1, "equal roofs share one label")
    check("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_" in text.split("</title>")[-1] or
          ">sm90_xmma_gemm_bf16" in text, "a long name keeps its front")
    check("mul_mat_vec_q&lt;(ggml_type)2" in text and "mul_mat_vec_q&lt;(ggml_type)8" in text,
          "template instances labelled apart")


def main(argv):
    global SCHEMAS
    if len(argv) < 6:
        sys.exit(__doc__)
    global RSVG
    case, rocm_perf, db, SCHEMAS, work = argv[1:6]
    RSVG = argv[7] if len(argv) > 7 else ""
    os.makedirs(work, exist_ok=True)
    if case == "svg":
        case_svg(rocm_perf, db, work, argv[6])
    else:
        {"outputs": case_outputs, "att": case_att, "ceilings": case_ceilings,
         "missing": case_missing}[case](rocm_perf, db, work)
    return 0


SCHEMAS = ""
RSVG = ""  # rsvg-convert, to render the charts and check their labels
if __name__ == "__main__":
    sys.exit(main(sys.argv))
