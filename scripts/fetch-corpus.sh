#!/usr/bin/env bash
# Fetch the real-world corpus (gpu/corpus/corpus.txt), each repository at its
# pinned commit, into DIR/<owner>+<name>/.  Only the listed paths are kept.
#
#   scripts/fetch-corpus.sh DIR
#
# CORPUS_MIRROR=PATH reads bare mirrors PATH/<owner>+<name>/repo (or .git)
# instead of cloning from GitHub.  A commit that is not there is an error.
set -euo pipefail

usage() { echo "usage: scripts/fetch-corpus.sh DIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
dest=$1
list=$(dirname "$0")/../gpu/corpus/corpus.txt
mkdir -p "$dest"

grep -v '^#' "$list" | while read -r repo commit paths; do
    [ -n "$repo" ] || continue
    out="$dest/${repo/\//+}"
    if [ -f "$out/.commit" ] && [ "$(cat "$out/.commit")" = "$commit" ]; then
        echo "$repo: already at $commit"
        continue
    fi
    rm -rf "$out" && mkdir -p "$out"
    if [ -n "${CORPUS_MIRROR:-}" ]; then
        git_dir="$CORPUS_MIRROR/${repo/\//+}/repo"
        [ -d "$git_dir" ] || git_dir="$CORPUS_MIRROR/${repo/\//+}.git"
    else
        git_dir="$dest/.git-${repo/\//+}"
        [ -d "$git_dir" ] || git init -q --bare "$git_dir"
        git --git-dir="$git_dir" fetch -q --depth 1 "https://github.com/$repo" "$commit"
    fi
    # shellcheck disable=SC2086 # the paths are words
    git --git-dir="$git_dir" archive "$commit" $paths | tar -x -C "$out"
    echo "$commit" >"$out/.commit"
    echo "$repo: $commit"
done
