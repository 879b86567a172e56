#!/usr/bin/python3
"""Validate a JSON file against a JSON Schema.

usage: validate_json.py SCHEMA FILE

Exit 0 when FILE is valid, 1 with the validation message on stderr when it
is not, 2 when either file cannot be read or is not JSON, or the schema is
itself invalid.  The schema's "$schema" picks the draft (2020-12 or 7).
"""
import json
import sys

import jsonschema


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"validate_json: cannot read {what} '{path}': {e}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) != 3:
        print("usage: validate_json.py SCHEMA FILE", file=sys.stderr)
        return 2
    schema = load(argv[1], "schema")
    doc = load(argv[2], "document")
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"validate_json: invalid schema '{argv[1]}': {e.message}", file=sys.stderr)
        return 2
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        print(f"{argv[2]}: {where}: {e.message}", file=sys.stderr)
    if errors:
        return 1
    print(f"{argv[2]}: valid against {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
