#!/bin/sh
# End-to-end tests of `rocm-perf capture` with a stand-in application
# (fake_capture_app.sh, a test double at the process boundary): no GPU.
#
# usage: capture_cli_test.sh CASE
# Environment (from CTest): ROCM_PERF, SNAPFIX, FAKE_APP, FIXTURES (tests/replay/fixtures),
# PYTHON, VALIDATE (validate_json.py), SCHEMA (snapshot.schema.json), WORK (scratch).
set -u
case=$1
work=$WORK/$case
rm -rf "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1
# Named by the injection variables, never loaded: the stand-in application is a shell.
lib=$work/fake_librpl_cupti.so
hsalib=$work/fake_librpl_hsa.so
: >"$lib"
: >"$hsalib"
export ROCM_PERF_CUPTI_LIB=$lib ROCM_PERF_HSA_LIB=$hsalib
desc=$FIXTURES/cuda_scale.json

fail() {
    echo "FAIL ($case): $*" >&2
    [ -f err.txt ] && sed 's/^/  stderr: /' err.txt >&2
    exit 1
}

# rp ARGS...: run rocm-perf; exit code in $rc, output in out.txt / err.txt.
rp() {
    rc=0
    "$ROCM_PERF" "$@" >out.txt 2>err.txt || rc=$?
}

expect_rc() {
    [ "$rc" -eq "$1" ] || fail "exit code $rc, expected $1"
}

# Exactly one line on stderr, matching the extended regex $1.
expect_one_line() {
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "stderr is not one line"
    grep -Eq -- "$1" err.txt || fail "stderr does not match '$1'"
}

expect_out() {
    grep -Eq -- "$1" out.txt || fail "stdout lacks '$1'"
}

case $case in
writes)
    # The N-th match of a pattern, with the application's own options after '--'.
    rp capture --backend cuda --kernel 'sca(l)e$' --dispatch 2 --out snap -- \
        sh "$FAKE_APP" "$SNAPFIX" "$desc" CUDA_INJECTION64_PATH "$lib" 'sca(l)e$' 2 write
    expect_rc 0
    [ ! -s err.txt ] || fail "stderr is not empty"
    expect_out "^Snapshot: snap$"
    expect_out "^Kernel: scale \\(dispatch 2\\)$"
    expect_out "^Backend: cuda, sm_90, NVIDIA H200$"
    expect_out "^Memory: 2 regions, 4196 bytes; 1 module global$"
    expect_out "^ASLR: off$"
    for f in dispatch memory_regions; do
        "$PYTHON" "$VALIDATE" "$SCHEMA" "snap/$f.json" >/dev/null || fail "snap/$f.json invalid"
    done
    ;;
hsa_env)
    # HSA_TOOLS_LIB keeps the user's own tools after ours.
    HSA_TOOLS_LIB=/opt/other/libtool.so rp capture --backend hsa --out snap -- \
        sh "$FAKE_APP" "$SNAPFIX" "$desc" HSA_TOOLS_LIB "$hsalib /opt/other/libtool.so" '' 0 write
    expect_rc 0
    expect_out "^Snapshot: snap$"
    ;;
wrong_snapshot)
    # A snapshot of another dispatch than the one asked for is refused.
    rp capture --backend cuda --dispatch 1 --out snap -- \
        sh "$FAKE_APP" "$SNAPFIX" "$desc" CUDA_INJECTION64_PATH "$lib" '' 1 wrong-index
    expect_rc 2
    expect_one_line "^rocm-perf: the capture left a bad snapshot: 'snap' holds dispatch 2 of 'scale', not dispatch 1 as asked$"
    rp capture --backend cuda --kernel '^gemm' --out snap2 -- \
        sh "$FAKE_APP" "$SNAPFIX" "$desc" CUDA_INJECTION64_PATH "$lib" '^gemm' 0 write
    expect_rc 2
    expect_one_line "^rocm-perf: the capture left a bad snapshot: 'snap2' holds kernel 'scale', which does not match '\\^gemm'$"
    ;;
no_snapshot)
    rp capture --backend cuda --kernel nothing --out snap -- \
        sh "$FAKE_APP" "$SNAPFIX" "$desc" CUDA_INJECTION64_PATH "$lib" nothing 0 none
    expect_rc 2
    expect_one_line "^rocm-perf: no snapshot in 'snap': the application finished without dispatch 0 of a kernel matching 'nothing'"
    [ ! -e snap ] || fail "snap exists"
    ;;
app_fails_first)
    rp capture --backend cuda --out snap -- sh -c 'exit 3'
    expect_rc 2
    expect_one_line "^rocm-perf: the application exited with status 3 before a snapshot was written to 'snap'$"
    ;;
app_fails_after)
    # The snapshot is good: it is kept and reported, with a warning about the application.
    rp capture --backend cuda --out snap -- sh "$FAKE_APP" "$SNAPFIX" "$desc" CUDA_INJECTION64_PATH "$lib" '' 0 fail-after
    expect_rc 0
    expect_out "^Snapshot: snap$"
    expect_one_line "^rocm-perf: warn: the application exited with status 5 after the capture$"
    ;;
exists)
    mkdir snap
    rp capture --backend cuda --out snap -- sh "$FAKE_APP" "$SNAPFIX" "$desc" CUDA_INJECTION64_PATH "$lib" '' 0 write
    expect_rc 2
    expect_one_line "^rocm-perf: 'snap' already exists; a snapshot is never written over$"
    ;;
bad_regex)
    rp capture --kernel 'a(' --out snap -- /bin/true
    expect_rc 2
    expect_one_line "^rocm-perf: bad --kernel pattern 'a\\(': "
    ;;
no_program)
    rp capture --backend cuda --out snap -- ./no-such-program
    expect_rc 2
    expect_one_line "no-such-program"
    ;;
no_library)
    ROCM_PERF_CUPTI_LIB=$work/missing.so rp capture --backend cuda --out snap -- /bin/true
    expect_rc 3
    expect_one_line "^rocm-perf: ROCM_PERF_CUPTI_LIB names '[^']*/missing.so', which cannot be read$"
    ;;
usage)
    rp capture --out snap
    expect_rc 2
    expect_one_line "^rocm-perf: capture needs a program to run after '--'"
    rp capture -- /bin/true
    expect_rc 2
    expect_one_line "^rocm-perf: capture needs --out DIR"
    rp capture --dispatch -1 --out snap -- /bin/true
    expect_rc 2
    expect_one_line "^rocm-perf: --dispatch wants a whole number, not '-1'$"
    rp capture --backend rocm --out snap -- /bin/true
    expect_rc 2
    expect_one_line "^rocm-perf: unknown capture backend 'rocm'"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok: $case"
