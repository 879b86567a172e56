#!/usr/bin/python3
"""The CI templates users copy (templates/ci/*.yml): valid YAML that yamllint accepts,
the jobs the user guide promises, and every `rocm-perf` command line in them accepted
by our CLI: `optimize` lines with --check-args (parse only), other subcommands by their
existence (`rocm-perf help CMD`).

usage: check_ci_templates.py ROCM_PERF TEMPLATE_DIR YAMLLINT_CONFIG
"""
import glob
import os
import re
import shlex
import subprocess
import sys

import yaml

ROCM_PERF, TEMPLATES, CONFIG = sys.argv[1:4]
problems = []


def strings(node):
    """Every string value of the parsed document (scripts, run: blocks)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)


def commands(doc):
    """Every rocm-perf command line of the scripts, continuation lines joined."""
    found = []
    for s in strings(doc):
        for line in s.replace("\\\n", " ").splitlines():
            line = " ".join(line.split())
            if line.startswith("rocm-perf "):
                found.append(line)
    return found


def placeholders(cmd):
    cmd = re.sub(r"\$\{\{[^}]*\}\}", "X", cmd)
    return re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", "X", cmd)


def main():
    files = sorted(glob.glob(os.path.join(TEMPLATES, "*.yml")))
    if len(files) < 2:
        problems.append(f"expected the GitHub and GitLab templates in {TEMPLATES}, found {files}")
    seen_optimize = 0
    for path in files:
        r = subprocess.run(["yamllint", "-c", CONFIG, path], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"yamllint {path}:\n{r.stdout}{r.stderr}")
        with open(path) as f:
            text = f.read()
        doc = yaml.safe_load(text)
        jobs = doc.get("jobs", doc)
        for job in ("perf-gate", "optimize"):
            if job not in jobs:
                problems.append(f"{path}: no '{job}' job")
        if "ctest" not in text or "-L perf" not in text:
            problems.append(f"{path}: the perf gate does not run 'ctest -L perf'")
        if "junit" not in text.lower():
            problems.append(f"{path}: no JUnit upload")
        # A failure to open a pull request is the user's to see, not to hide.
        for line in text.splitlines():
            if re.search(r"\|\|\s*true\b", line):
                problems.append(f"{path}: a failure is hidden: '{line.strip()}'")
        if "gh pr create" in text and "--label" in text and "gh label create" not in text:
            problems.append(f"{path}: gh pr create --label with no 'gh label create' first")
        cmds = commands(doc)
        if not cmds:
            problems.append(f"{path}: no rocm-perf command line found")
        for cmd in cmds:
            words = shlex.split(placeholders(cmd))
            sub = words[1]
            if sub == "optimize":
                seen_optimize += 1
                for need in ("--auto-approve", "--push"):
                    if need not in words:
                        problems.append(f"{path}: '{cmd}' lacks {need}")
                argv = [ROCM_PERF] + words[1:] + ["--check-args"]
            else:
                argv = [ROCM_PERF, "help", sub]
            r = subprocess.run(argv, capture_output=True, text=True)
            if r.returncode != 0:
                problems.append(f"{path}: '{cmd}' is refused (exit {r.returncode}): {r.stderr}")
            else:
                print(f"ok: {os.path.basename(path)}: {cmd}")
    if seen_optimize < len(files):
        problems.append("each template should run rocm-perf optimize")
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


sys.exit(main())
