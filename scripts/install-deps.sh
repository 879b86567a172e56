#!/bin/sh
# Install every Debian 12 package that rocm-perf-lab's build and tests need.
# Idempotent: packages already installed are left alone, and apt-get runs
# only when something is missing.  Run as root (or through sudo).
# CUDA is optional and not installed here: the build detects /usr/local/cuda.
set -eu

packages="
    build-essential cmake pkg-config git
    clang clang-format libclang-rt-14-dev
    libsqlite3-dev sqlite3
    libxml2-dev libxml2-utils librsvg2-bin tidy chromium
    libcjson-dev libcurl4-openssl-dev libgsl-dev libgit2-dev libcmocka-dev
    libssl-dev libclang-dev
    libelf-dev libmsgpack-dev libzstd-dev
    python3 python3-jsonschema yamllint
    hipcc libamdhip64-dev libhsa-runtime-dev rocminfo
"

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
fi
echo "install-deps: installing$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
