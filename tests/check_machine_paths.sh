#!/bin/sh
# Fails when a tracked text file names an absolute path of a development
# machine (the work tree root of the CPU machine, root's or a user's home),
# or the development machine's shared folder beside the repository: the
# repository must hold everything it needs.  Binary files are skipped:
# the recorded fixture databases keep the command lines of the machine that
# recorded them (tests/fixtures/recorded/README.md).  Exit 77 outside a git
# checkout (a source tarball).
# usage: check_machine_paths.sh SOURCE_DIR
set -eu
cd "$1"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
    echo "check_machine_paths: $1 is not a git checkout, skipped" >&2
    exit 77
}
# Built from parts so that this file does not match itself.
w=work r=root h=home s=shared
pattern="(^|[[:space:]\"'\`(=:,<>[])/($w|$r)/|(^|[[:space:]\"'\`(=:,<>[])/$h/[A-Za-z0-9._-]+/|(^|[^A-Za-z0-9_])(\.\./)*$s/(reference|seeds|design|tools)/"
if git grep -I -n -E "$pattern" -- . >&2; then
    echo "check_machine_paths: the lines above name a path of a development machine;" \
         "use a path relative to the repository (or \$HOME, a variable, an option)" >&2
    exit 1
fi
echo "check_machine_paths: no machine paths in $(git ls-files | wc -l) tracked files"
