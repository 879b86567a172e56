#!/bin/sh
# expect_no_gpu.sh LIB NODE -- COMMAND [ARGS...]
#
# A replay on a machine without the GPU it needs: exit 3 with "cannot load
# LIB" when the driver library LIB does not load, else exit 77 (no GPU),
# with GPUs hidden from the runtimes (CUDA_VISIBLE_DEVICES and
# ROCR_VISIBLE_DEVICES empty) in case NODE exists.  One stderr line either
# way (expect_exit.sh).
set -u
lib=$1
node=$2
shift 3
here=$(dirname "$0")
if ! /usr/bin/python3 -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$lib" 2>/dev/null; then
    exec sh "$here/../integration/expect_exit.sh" 3 "^rocm-perf: cannot load $lib " -- "$@"
fi
if [ ! -e "$node" ]; then
    exec sh "$here/../integration/expect_exit.sh" 77 "^rocm-perf: no (NVIDIA|AMD) GPU here \\($node is missing\\)" -- "$@"
fi
CUDA_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES= exec sh "$here/../integration/expect_exit.sh" 77 "^rocm-perf: " -- "$@"
