#!/usr/bin/env python3
"""Render an SVG we wrote to PNG and check its text labels.

usage: check_svg.py RSVG_CONVERT SVG PNG [--labels-clear]

The SVG must render (rsvg-convert exits 0 and writes a non-empty PNG, kept
for a person to look at).  With --labels-clear, no two text boxes overlap and
every one lies inside the view box.  A box is estimated as the chart code
places labels: 0.6 x font-size per character wide, from 0.8 x font-size above
the baseline to 0.25 x font-size below it, with the font-size a text has or
inherits (16 when none is set); rotated texts are left out.
"""
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
SLACK = 0.5  # pixels: boxes that only touch do not overlap


def texts(node, font=16.0):
    """(text element, its font size) below node, the size inherited from the ancestors."""
    for child in node:
        size = float(child.get("font-size", font))
        if child.tag == NS + "text":
            yield child, size
        else:
            yield from texts(child, size)


def text_boxes(root):
    boxes = []
    for t, font in texts(root, float(root.get("font-size", "16"))):
        if t.get("transform"):
            continue
        s = "".join(t.itertext())
        x, y = float(t.get("x", "0")), float(t.get("y", "0"))
        w = 0.6 * font * len(s)
        anchor = t.get("text-anchor", "start")
        x0 = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
        boxes.append((s, (x0, y - 0.8 * font, x0 + w, y + 0.25 * font)))
    return boxes


def overlap(a, b):
    return (a[0] + SLACK < b[2] and b[0] + SLACK < a[2] and
            a[1] + SLACK < b[3] and b[1] + SLACK < a[3])


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    rsvg, svg, png = argv[1:4]
    p = subprocess.run([rsvg, "-o", png, svg], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAILED: rsvg-convert {svg}: exit {p.returncode}: {p.stderr}")
    with open(png, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            sys.exit(f"FAILED: {png} is not a PNG")
    if "--labels-clear" not in argv[4:]:
        return 0
    root = ET.parse(svg).getroot()
    view = [float(v) for v in root.get("viewBox").split()]
    boxes = text_boxes(root)
    bad = []
    for i, (s, b) in enumerate(boxes):
        if b[0] < view[0] - SLACK or b[1] < view[1] - SLACK or \
           b[2] > view[0] + view[2] + SLACK or b[3] > view[1] + view[3] + SLACK:
            bad.append(f"'{s}' leaves the view box {view}: {b}")
        for s2, b2 in boxes[i + 1:]:
            if overlap(b, b2):
                bad.append(f"'{s}' overlaps '{s2}'")
    if bad:
        sys.exit(f"FAILED: {svg}:\n  " + "\n  ".join(bad))
    print(f"ok: {svg}: {len(boxes)} labels clear of each other; PNG {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
