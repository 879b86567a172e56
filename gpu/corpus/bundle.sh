#!/bin/bash
# gpu/corpus/bundle.sh BUILD_DIR CORPUS_DIR PROGRAMS_DIR OUT_DIR: pack what
# gpu/corpus/check.sh runs into OUT_DIR (on the build machine): rocm-perf and
# librpl_cupti.so with the libraries the GPU machine lacks, the corpus programs
# (PROGRAMS_DIR/bin from gpu/corpus/build.sh), their sources (CORPUS_DIR from
# scripts/fetch-corpus.sh), the stand-in answers and server, the prompt templates.
#   gpu/corpus/bundle.sh build/gpu corpus corpus-build .gpu-corpus
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
corpus=$(cd "$2" && pwd)
programs=$(cd "$3" && pwd)
bundle_start "$1" "$4"
mkdir -p "$out/corpus/src" "$out/templates"
cp -r "$programs/bin" "$out/corpus/"
# HIP's headers for the NVIDIA platform (gpu/corpus/build.sh): the HIP programs' optimizer builds.
[ ! -d "$programs/hip-include" ] || cp -r "$programs/hip-include" "$out/corpus/"
# matmul_forward links OpenMP's runtime, which a GPU machine without gcc lacks.
gomp=$(ldd "$programs/bin/matmul_forward" 2>/dev/null | awk '/libgomp/ { print $3 }')
[ -z "$gomp" ] || { mkdir -p "$out/corpus/gomp" && cp -L "$gomp" "$out/corpus/gomp/"; }
for d in "$corpus"/*+*; do
    cp -r "$d" "$out/corpus/src/"
    rm -rf "$out/corpus/src/$(basename "$d")/build"
done
cp -r "$root/templates/llm" "$out/templates/"
cp "$root/templates/rpl_harness.h" "$out/templates/" 2>/dev/null || true
cp -r "$root/gpu/corpus/answers" "$out/"
bundle_finish "$root/tests/llm/standin_server.py" "$root/gpu/corpus/check.sh" "$root/gpu/lib.sh"
