#!/bin/sh
# TEST DOUBLE at the process boundary: stands in for an application run
# with a capture library injected (librpl_cupti.so / librpl_hsa.so need a
# GPU).  It checks what `rocm-perf capture` promised the application, then
# does what the capture library would: write the snapshot with the real
# writer (rpl_snapfix) where ROCM_PERF_CAPTURE_DIR says.
#
# usage: fake_capture_app.sh SNAPFIX DESC VAR LIB KERNEL DISPATCH [write|none|fail-after|wrong-index]
#   VAR LIB    the injection variable (CUDA_INJECTION64_PATH, HSA_TOOLS_LIB) and the
#              library it must name first
#   KERNEL DISPATCH   the expected ROCM_PERF_CAPTURE_KERNEL / _DISPATCH
#   write: write the snapshot of dispatch DISPATCH and exit 0 (default); none: write
#   nothing; fail-after: write it, then exit 5; wrong-index: record dispatch DISPATCH+1.
# A broken promise exits 9 with one line on stderr.
set -u
snapfix=$1 desc=$2 var=$3 lib=$4 kernel=$5 dispatch=$6 mode=${7:-write}
broken() {
    echo "fake_capture_app: $*" >&2
    exit 9
}
# ADDR_NO_RANDOMIZE is 0x0040000 in the personality (read by a child: it is inherited).
persona=$(cat /proc/self/personality)
[ $((0x$persona & 0x40000)) -ne 0 ] || broken "ASLR is on (personality $persona)"
eval "value=\${$var-}"
case "$value" in
"$lib" | "$lib "*) ;;
*) broken "$var is '$value', expected '$lib' first" ;;
esac
[ "${ROCM_PERF_CAPTURE_KERNEL-unset}" = "$kernel" ] ||
    broken "ROCM_PERF_CAPTURE_KERNEL is '${ROCM_PERF_CAPTURE_KERNEL-unset}', expected '$kernel'"
[ "${ROCM_PERF_CAPTURE_DISPATCH-unset}" = "$dispatch" ] ||
    broken "ROCM_PERF_CAPTURE_DISPATCH is '${ROCM_PERF_CAPTURE_DISPATCH-unset}'"
[ -n "${ROCM_PERF_CAPTURE_DIR-}" ] || broken "ROCM_PERF_CAPTURE_DIR is not set"
[ ! -e "$ROCM_PERF_CAPTURE_DIR" ] || broken "'$ROCM_PERF_CAPTURE_DIR' exists already"
case "$mode" in
none) exit 0 ;;
write) exec "$snapfix" "$desc" "$ROCM_PERF_CAPTURE_DIR" "$dispatch" ;;
wrong-index) exec "$snapfix" "$desc" "$ROCM_PERF_CAPTURE_DIR" $((dispatch + 1)) ;;
fail-after)
    "$snapfix" "$desc" "$ROCM_PERF_CAPTURE_DIR" "$dispatch" || exit 9
    exit 5
    ;;
esac
broken "unknown mode '$mode'"
