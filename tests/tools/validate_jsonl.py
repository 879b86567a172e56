#!/usr/bin/python3
"""Validate a JSON Lines file against a JSON Schema, line by line.

usage: validate_jsonl.py SCHEMA FILE [MIN_LINES]

Exit 0 when FILE has at least MIN_LINES (default 1) lines and each is a JSON
document valid against SCHEMA; 1 with the line number and message on
stderr otherwise; 2 when a file cannot be read or the schema is invalid.
"""
import json
import sys

import jsonschema


def main(argv):
    if len(argv) not in (3, 4):
        print("usage: validate_jsonl.py SCHEMA FILE [MIN_LINES]", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        with open(argv[2], encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, ValueError) as e:
        print(f"validate_jsonl: {e}", file=sys.stderr)
        return 2
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"validate_jsonl: invalid schema '{argv[1]}': {e.message}", file=sys.stderr)
        return 2
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    else:
        print(f"{argv[2]}: the last line has no newline", file=sys.stderr)
        return 1
    bad = 0
    for n, line in enumerate(lines, 1):
        try:
            doc = json.loads(line)
        except ValueError as e:
            print(f"{argv[2]}:{n}: not JSON: {e}", file=sys.stderr)
            bad += 1
            continue
        for e in validator.iter_errors(doc):
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            print(f"{argv[2]}:{n}: {where}: {e.message}", file=sys.stderr)
            bad += 1
    want = int(argv[3]) if len(argv) == 4 else 1
    if len(lines) < want:
        print(f"{argv[2]}: {len(lines)} lines, expected at least {want}", file=sys.stderr)
        return 1
    if bad:
        return 1
    print(f"{argv[2]}: {len(lines)} lines valid against {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
