#!/usr/bin/env python3
"""Copy HIP's headers and keep its NVIDIA layer out of what CUDA 13 removed.

    gpu/corpus/hip_cuda13.py HIP_INCLUDE DEST

HIP_INCLUDE is a HIP include folder (Debian's libamdhip64-dev: /usr/include,
HIP 5.2); DEST/hip becomes a copy of HIP_INCLUDE/hip in which
nvidia_detail/nvidia_hip_runtime_api.h has, under `#if CUDA_VERSION < 13000`,
each wrapper whose CUDA call CUDA 13 removed or changed (texture references,
multi-device cooperative launch, cuCtxCreate, cudaMemAdvise/PrefetchAsync's
device argument, the graph edge calls) and each copy of a cudaDeviceProp field
CUDA 13 dropped.  Nothing else changes: with CUDA 13 those wrappers are absent
(a program calling one fails to compile) and those fields of hipDeviceProp_t
are left as hipGetDeviceProperties found them.  The copy is for the GPU bundle
only; HIP's headers are never committed here.
"""
import re
import shutil
import sys
from pathlib import Path

# CUDA runtime/driver calls CUDA 13 removed or gave another signature.
REMOVED_CALLS = re.compile(
    r"\b(cudaBindTexture2D|cudaBindTextureToArray|cudaBindTexture|cudaUnbindTexture"
    r"|cudaGetTextureAlignmentOffset|cudaLaunchCooperativeKernelMultiDevice|cuCtxCreate"
    r"|cudaMemAdvise|cudaMemPrefetchAsync|cudaGraphAddDependencies"
    r"|cudaGraphRemoveDependencies|cudaGraphGetEdges|cudaGraphNodeGetDependencies"
    r"|cudaGraphNodeGetDependentNodes|cudaStreamGetCaptureInfo_v2"
    r"|cudaStreamUpdateCaptureDependencies)\s*\(|\bstruct texture<")
# cudaDeviceProp fields CUDA 13 dropped, read or written one per line.
REMOVED_FIELDS = re.compile(
    r"\bcdprop\.(clockRate|memoryClockRate|computeMode|cooperativeMultiDeviceLaunch"
    r"|kernelExecTimeoutEnabled)\b")
REMOVED_ENUMS = re.compile(r"\bcudaDevAttrCooperativeMultiDeviceLaunch\b")
# A definition starts at column 0 (template header or storage words) and ends at
# the first "}" in column 0.
DEF_START = re.compile(r"^(template\b|(__HIP_DEPRECATED\s+)?inline\b|static\b)")
GUARD, END = "#if CUDA_VERSION < 13000  /* removed in CUDA 13 */\n", "#endif\n"


def guard(lines):
    """Return lines with each offending definition, field line and case wrapped."""
    out, i, n, changed = [], 0, len(lines), 0
    while i < n:
        line = lines[i]
        if DEF_START.match(line):
            j, opened = i, False
            # A declaration (";" before any "{") has no body to look at.
            while j < n and lines[j].rstrip("\n") != "}":
                opened = opened or "{" in lines[j]
                if not opened and lines[j].rstrip().endswith(";"):
                    break
                j += 1
            if j < n and lines[j].rstrip("\n") == "}":
                body = lines[i:j + 1]
                if any(REMOVED_CALLS.search(b) for b in body):
                    out += [GUARD] + body + [END]
                    changed += 1
                    i = j + 1
                    continue
        if REMOVED_FIELDS.search(line) and line.split("//")[0].rstrip().endswith(";"):
            out += [GUARD, line, END]
            changed += 1
        elif REMOVED_ENUMS.search(line) and i > 0 and "case " in lines[i - 1] \
                and i + 1 < n and "break;" in lines[i + 1]:
            out.pop()
            out += [GUARD, lines[i - 1], line, lines[i + 1], END]
            changed += 1
            i += 1
        else:
            out.append(line)
        i += 1
    return out, changed


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: hip_cuda13.py HIP_INCLUDE DEST\n")
        return 2
    src, dest = Path(sys.argv[1]) / "hip", Path(sys.argv[2]) / "hip"
    api = dest / "nvidia_detail" / "nvidia_hip_runtime_api.h"
    if not (src / "nvidia_detail" / "nvidia_hip_runtime_api.h").is_file():
        sys.stderr.write(f"hip_cuda13.py: {src} has no nvidia_detail/nvidia_hip_runtime_api.h\n")
        return 2
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, symlinks=False)
    lines, changed = guard(api.read_text().splitlines(keepends=True))
    tmp = api.with_suffix(".tmp")
    tmp.write_text("".join(lines))
    tmp.replace(api)
    print(f"{api}: {changed} definitions and lines kept out for CUDA 13")
    return 0


if __name__ == "__main__":
    sys.exit(main())
