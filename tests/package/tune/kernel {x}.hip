// A source named with a space and braces for tests/package/check_tune_target.py; never compiled.
