#!/bin/bash
# gpu-bundle.sh DIR FILE...
#
# Packs what a GPU check needs into DIR so that it can be carried to the lent
# GPU machine (Ubuntu 24.04, glibc 2.39, CUDA 13), which lacks cJSON, GSL,
# libgit2, msgpack and a few others.  Executables go to DIR/bin, shared
# objects to DIR/lib, and with them every library they load (directly or
# through a library copied) that the GPU machine does not have.
# scripts/gpu-machine-libs.txt lists the sonames that machine provides (its
# `ldconfig -p`, read once on such a machine); glibc, the C++ runtime and the
# CUDA/CUPTI libraries are never copied.  DIR/env.sh sets LD_LIBRARY_PATH.
#
# The whole procedure is described in gpu/README.md.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: scripts/gpu-bundle.sh DIR FILE..." >&2
    exit 2
fi
dir=$1
shift
scripts=$(cd "$(dirname "$0")" && pwd)
provided="$scripts/gpu-machine-libs.txt"
never='^(ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s|libcuda|libcupti|libcudart|libnvperf|libnvidia|libnvrtc)'

mkdir -p "$dir/bin" "$dir/lib"
declare -A done_names

# add_needs FILE: copy the libraries FILE needs that the GPU machine lacks.
add_needs() {
    local file=$1 soname path
    for soname in $(readelf -d "$file" 2>/dev/null |
                    sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        [ -n "${done_names[$soname]:-}" ] && continue
        done_names[$soname]=1
        [[ $soname =~ $never ]] && continue
        grep -qxF "$soname" "$provided" && continue
        path=$(ldd "$file" 2>/dev/null |
               awk -v n="$soname" '$1 == n && $3 ~ /^\// { print $3 }')
        if [ -z "$path" ]; then
            echo "gpu-bundle: $soname (needed by $file) is not installed here" >&2
            exit 3
        fi
        cp -L "$path" "$dir/lib/"
        add_needs "$path"
    done
}

for file in "$@"; do
    if [ ! -f "$file" ]; then
        echo "gpu-bundle: $file: no such file (build it first)" >&2
        exit 2
    fi
    case "$(file -b -L "$file")" in
        *"shared object"*) cp -L "$file" "$dir/lib/" ;;
        *) cp -L "$file" "$dir/bin/" ;;
    esac
    add_needs "$file"
done

cat > "$dir/env.sh" <<'ENV'
# Source on the GPU machine: . BUNDLE/env.sh
bundle_dir=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export LD_LIBRARY_PATH="$bundle_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$bundle_dir/bin:$PATH"
ENV
du -sh "$dir" | awk '{ print "gpu-bundle: " $1 " in " $2 }'
