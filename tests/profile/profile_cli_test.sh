#!/bin/sh
# End-to-end tests of `rocm-perf profile`, against the rocprofv3 test double
# (fake-rocprofv3) and a stand-in CUDA program (fake-cuda-app): no GPU is used.
#
# usage: profile_cli_test.sh CASE
# Environment (from CTest): ROCM_PERF, RPL_FIXTURE_TOOL, DOUBLE_BIN (a folder with
# the double as 'rocprofv3'), TESTDATA (tests/profile), PYTHON, VALIDATE
# (validate_json.py), SCHEMA (profile.schema.json), SQLITE3, WORK (scratch),
# FIXTURE_DB (a fixture rocpd database).
set -u
case=$1
work=$WORK/$case
rm -rf "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

fail() {
    echo "FAIL ($case): $*" >&2
    [ -f err.txt ] && sed 's/^/  stderr: /' err.txt >&2
    exit 1
}

# rp ARGS...: run rocm-perf; its exit code in $rc, output in out.txt / err.txt.
rp() {
    rc=0
    "$ROCM_PERF" "$@" >out.txt 2>err.txt || rc=$?
}

expect_rc() {
    [ "$rc" -eq "$1" ] || fail "exit code $rc, expected $1"
}

expect_err() {
    grep -q -- "$1" err.txt || fail "stderr lacks '$1'"
}

sql() {
    "$SQLITE3" "$1" "$2" || fail "sqlite3 failed on $1: $2"
}

valid_profile() {
    "$PYTHON" "$VALIDATE" "$SCHEMA" "$1/profile.json" || fail "$1/profile.json does not validate"
}

# The gfx942 roofline counters are all in D/profile.db, on every dispatch, with the
# values of the pass that measured them.
roofline_merged() {
    db=$1/profile.db
    [ "$(sql "$db" 'SELECT COUNT(*) FROM rocpd_kernel_dispatch')" = 7 ] || fail "not 7 dispatches"
    [ "$(sql "$db" 'SELECT COUNT(DISTINCT name) FROM rocpd_info_pmc')" = 22 ] ||
        fail "not 22 counters in $db"
    full=$(sql "$db" 'SELECT COUNT(*) FROM (SELECT event_id FROM rocpd_pmc_event
                      GROUP BY event_id HAVING COUNT(DISTINCT pmc_id) = 22)')
    [ "$full" = 7 ] || fail "$full of 7 dispatches have all 22 counters"
    # Pass 3 alone measured MFMA_MOPS_F8: gemm 300 + 600 per hardware instance,
    # saxpy 2003 (values of the fixture gfx942/pass3.json).
    f8=$(sql "$db" "SELECT GROUP_CONCAT(v) FROM (SELECT DISTINCT CAST(E.value AS INT) AS v
                    FROM rocpd_pmc_event E JOIN rocpd_info_pmc P ON P.id = E.pmc_id
                    WHERE P.name = 'SQ_INSTS_VALU_MFMA_MOPS_F8' ORDER BY v)")
    [ "$f8" = "900,2003" ] || fail "MOPS_F8 values '$f8', expected pass 3's 900,2003"
    # Pass 1 measured ADD_F16: gemm 100 + 200 per instance, saxpy 2001.
    add=$(sql "$db" "SELECT GROUP_CONCAT(v) FROM (SELECT DISTINCT CAST(E.value AS INT) AS v
                     FROM rocpd_pmc_event E JOIN rocpd_info_pmc P ON P.id = E.pmc_id
                     WHERE P.name = 'SQ_INSTS_VALU_ADD_F16' ORDER BY v)")
    [ "$add" = "300,2001" ] || fail "ADD_F16 values '$add', expected 300,2001"
}

double_env() {
    PATH=$DOUBLE_BIN:$PATH
    FAKE_ROCPROF_DIR=$TESTDATA/double/gfx942
    export PATH FAKE_ROCPROF_DIR RPL_FIXTURE_TOOL
}

PASS1="SQ_INSTS_VALU_ADD_F16,SQ_INSTS_VALU_MUL_F16,SQ_INSTS_VALU_FMA_F16,SQ_INSTS_VALU_TRANS_F16"
PASS1="$PASS1,SQ_INSTS_VALU_ADD_F32,SQ_INSTS_VALU_MUL_F32,SQ_INSTS_VALU_FMA_F32"
PASS1="$PASS1,SQ_INSTS_VALU_TRANS_F32,TCC_EA0_RDREQ_sum,TCC_EA0_RDREQ_32B_sum,TCC_BUBBLE_sum"

case $case in
roofline)
    double_env
    export FAKE_ROCPROF_PASSES=3
    rp profile --backend rocprofv3 --arch gfx942 --out D -- /bin/true
    expect_rc 0
    valid_profile D
    for n in 1 2 3; do
        ls D/rocprofv3/pass_$n/*/*_results.db >/dev/null 2>&1 || fail "no pass_$n database"
    done
    grep -q '"pmc"' D/rocprofv3-passes.json || fail "no passes file left in D"
    roofline_merged D
    # Times from the run without counters (gemm 40 us there, 80 us under counter collection).
    ls D/rocprofv3/trace_only/*/*_results.db >/dev/null 2>&1 || fail "no trace-only run"
    longest=$(sql D/profile.db 'SELECT MAX(end - start) FROM rocpd_kernel_dispatch')
    [ "$longest" -lt 60000 ] || fail "longest dispatch $longest ns: times of a counter pass"
    grep -q '^times: from a run without counters' out.txt || fail "no word on where times come from"
    # The sample goes to rocprofv3 as its iteration range: skip 5, then 2 of each kernel.
    FAKE_ROCPROF_RANGE='[6-7]' rp profile --backend rocprofv3 --arch gfx942 --counter-skip 5 \
        --counter-dispatches 2 --out D -- /bin/true
    expect_rc 0
    FAKE_ROCPROF_RANGE=none rp profile --backend rocprofv3 --arch gfx942 \
        --counter-dispatches all --out D -- /bin/true
    expect_rc 0
    ;;
list)
    double_env
    export FAKE_ROCPROF_PASSES=1
    rp profile --backend rocprofv3 --counters "$PASS1" --out D -- /bin/true
    expect_rc 0
    valid_profile D
    [ "$(sql D/profile.db 'SELECT COUNT(DISTINCT name) FROM rocpd_info_pmc')" = 11 ] ||
        fail "not the 11 listed counters"
    ;;
none | rerun)
    double_env
    if [ "$case" = rerun ]; then
        # A run with counters first: its passes and databases must not survive the next.
        rp profile --backend rocprofv3 --arch gfx942 -o D -- /bin/true
        expect_rc 0
    fi
    FAKE_ROCPROF_DIR=$TESTDATA/double
    rp profile --backend rocprofv3 --counters none -o D -- /bin/true
    expect_rc 0
    if [ "$case" = rerun ]; then
        [ "$(ls D/rocprofv3/*/*_results.db | wc -l)" = 1 ] || fail "previous run's output kept"
        [ -e D/rocprofv3-passes.json ] && fail "a passes file without counters"
    fi
    valid_profile D
    ls D/rocprofv3/pass_* >/dev/null 2>&1 && fail "pass folders without counters"
    [ "$(sql D/profile.db 'SELECT COUNT(*) FROM rocpd_pmc_event')" = 0 ] || fail "counters appeared"
    [ "$(sql D/profile.db 'SELECT COUNT(*) FROM rocpd_kernel_dispatch')" = 7 ] ||
        fail "not 7 dispatches"
    ;;
nogpu)
    double_env
    export FAKE_ROCPROF_MODE=nogpu
    rp profile --backend rocprofv3 --arch gfx942 -o D -- /bin/true
    expect_rc 77
    expect_err "rocm-perf: no AMD GPU for rocprofv3"
    ;;
kfd_denied)
    double_env
    export FAKE_ROCPROF_MODE=kfd-denied
    rp profile --backend rocprofv3 --arch gfx942 -o D -- /bin/true
    expect_rc 3
    expect_err "permission denied on /dev/kfd: add your user to the 'render' and 'video' groups"
    ;;
app_fails)
    double_env
    FAKE_ROCPROF_DIR=$TESTDATA/double
    rp profile --backend rocprofv3 --counters none -o D -- /bin/sh -c 'exit 5'
    expect_rc 3
    expect_err "rocm-perf: the program exited with status 5 under rocprofv3"
    [ -f D/profile.json ] && fail "analysis written for a failed run"
    ;;
missing)
    PATH=/usr/bin:/bin ROCM_PATH=$work/no-rocm rp profile --backend rocprofv3 -o D -- /bin/true
    expect_rc 3
    expect_err "rocm-perf: rocprofv3 not found in PATH or $work/no-rocm/bin"
    ;;
rocm6)
    double_env
    export FAKE_ROCPROF_MODE=rocm6 FAKE_ROCPROF_CSV=$TESTDATA/csv/rocm64
    rp profile --backend rocprofv3 --counters none -o D -- /bin/true
    expect_rc 0
    expect_err "no rocpd output"
    valid_profile D
    ls D/rocprofv3/*_kernel_trace.csv >/dev/null || fail "no CSV output"
    [ "$(sql D/profile.db 'SELECT COUNT(*) FROM rocpd_kernel_dispatch')" = 3 ] ||
        fail "not the CSV's 3 dispatches"
    ;;
rocm6_passes)
    # ROCm 6.x with counters: the passes go as "pmc:" lines, the output to pmc_N/.
    double_env
    export FAKE_ROCPROF_MODE=rocm6 FAKE_ROCPROF_CSV=$TESTDATA/csv/rocm62 FAKE_ROCPROF_PASSES=3
    rp profile --backend rocprofv3 --arch gfx942 -o D -- /bin/true
    expect_rc 0
    valid_profile D
    grep -q '^pmc: SQ_INSTS_VALU_ADD_F16 ' D/rocprofv3-passes.txt || fail "no pmc: lines"
    for n in 1 2 3; do
        ls D/rocprofv3/pmc_$n/*_kernel_trace.csv >/dev/null 2>&1 || fail "no pmc_$n output"
    done
    [ "$(sql D/profile.db 'SELECT COUNT(DISTINCT name) FROM rocpd_info_pmc')" = 2 ] ||
        fail "not the CSV's 2 counters"
    ;;
no_output)
    double_env
    export FAKE_ROCPROF_MODE=silent
    rp profile --backend rocprofv3 --counters none -o D -- /bin/true
    expect_rc 3
    expect_err "rocprofv3 exited cleanly but wrote no database under 'D/rocprofv3'"
    ;;
double_rejects)
    # The double itself fails loudly on an argument the runner must never pass.
    rc=0
    RPL_FIXTURE_TOOL=$RPL_FIXTURE_TOOL "$DOUBLE_BIN/rocprofv3" --kernel-trace --sys-trace \
        -- /bin/true 2>err.txt || rc=$?
    expect_rc 64
    expect_err "unexpected argument '--sys-trace'"
    ;;
auto_nogpu)
    # The premise is a machine without a GPU; with one, this test is skipped (77).
    if [ -e /dev/kfd ] || [ -e /dev/nvidia0 ]; then
        exit 77
    fi
    rp profile -- /bin/true
    expect_rc 77
    expect_err "rocm-perf: no AMD or NVIDIA GPU found (/dev/kfd not found"
    ;;
no_rocprof_db)
    rp profile --no-rocprof --trace "$FIXTURE_DB" --out D
    expect_rc 0
    valid_profile D
    [ -f D/profile.db ] || fail "no D/profile.db"
    ;;
no_rocprof_dir)
    double_env
    rp profile --backend rocprofv3 --arch gfx942 --out D -- /bin/true
    expect_rc 0
    rp profile --no-rocprof --trace D/rocprofv3 --out E
    expect_rc 0
    valid_profile E
    roofline_merged E
    ;;
no_rocprof_csv)
    rp profile --no-rocprof --trace "$TESTDATA/csv/rocm62/1234_kernel_trace.csv" -o D
    expect_rc 0
    valid_profile D
    [ "$(sql D/profile.db "SELECT COUNT(*) FROM rocpd_info_pmc")" = 2 ] || fail "CSV counters lost"
    rp profile --no-rocprof --trace "$TESTDATA/csv/bad/quote_in_field_kernel_trace.csv" -o B
    expect_rc 2
    expect_err "quote inside an unquoted field"
    ;;
csv_real_shapes)
    # A folder with two runs' CSVs, 492,188 s apart: refused with the list, nothing written.
    rp profile --no-rocprof --trace "$TESTDATA/csv/two_runs" -o D
    expect_rc 2
    expect_err "holds rocprofv3 CSVs of different runs"
    expect_err "4100_kernel_trace.csv (from 0.000 s), .*9800_kernel_trace.csv (from 492188.000 s)"
    [ -e D/profile.json ] && fail "a mixed folder was analysed"
    # Counter rows without a dispatch: the rest is kept, one warning counts them.
    rp profile --no-rocprof --trace "$TESTDATA/csv/partial/55_kernel_trace.csv" -o P
    expect_rc 0
    expect_err "2 counter rows left out: correlation ids such as 3 match no dispatch"
    [ "$(grep -c 'counter rows left out' err.txt)" = 1 ] || fail "warned more than once"
    [ "$(sql P/profile.db 'SELECT COUNT(*) FROM rocpd_pmc_event')" = 2 ] ||
        fail "not the 2 matched counter values"
    # Template instances stay apart in the table.
    grep -q 'mul_mat_vec_q<(ggml_type)2, 1>(' out.txt || fail "instance 2 not shown: $(cat out.txt)"
    grep -q 'mul_mat_vec_q<(ggml_type)8, 1>(' out.txt || fail "instance 8 not shown"
    # A kernel trace under another name, found by its header row; no agent_info beside it.
    rp profile --no-rocprof --trace "$TESTDATA/csv/renamed/kernel_trace_truncated.csv" -o R
    expect_rc 0
    grep -q '^device:     unknown device' out.txt || fail "device not 'unknown device': $(cat out.txt)"
    grep -q '()' out.txt && fail "an empty device name printed"
    rp profile --no-rocprof --trace "$TESTDATA/csv/rocm62/1234_agent_info.csv" -o R
    expect_rc 2
    expect_err "is a rocprofv3 agent_info CSV, not a kernel trace"
    ;;
cupti)
    : >fake_librpl_cupti.so
    export ROCM_PERF_CUPTI_LIB=$work/fake_librpl_cupti.so EXPECT_LIB=$work/fake_librpl_cupti.so
    export RPL_FIXTURE_TOOL FAKE_APP_DESC=$TESTDATA/double/trace.json EXPECT_COUNTERS=roofline
    FAKE_APP_LOG=$work/runs.txt rp profile --backend cupti -o D -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    valid_profile D
    ls D/cupti/*/*_results.db >/dev/null || fail "no recorder database in D/cupti"
    # A trace-only run whose times are used, then the counter run.
    [ "$(tr '\n' ' ' <runs.txt)" = "none roofline " ] || fail "runs: $(cat runs.txt)"
    ls D/cupti/trace_only/*/*_results.db >/dev/null || fail "no trace-only run in D/cupti"
    grep -q '^times: from a run without counters' out.txt || fail "no word on where times come from"
    EXPECT_COUNTERS=sm__cycles_elapsed.avg,dram__bytes_read.sum
    rp profile --backend cupti --counters "sm__cycles_elapsed.avg dram__bytes_read.sum" -o D \
        -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    export EXPECT_COUNTERS=none EXPECT_KERNELS=serial
    rp profile --backend cupti --counters none --kernel-timing serial -o D \
        -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    # The gate passes ROCM_PERF_KERNEL_TIMING on to the recorder.
    ROCM_PERF_KERNEL_TIMING=serial ROCM_PERF_BACKEND=cupti ROCM_PERF_UPDATE_BASELINES=1 \
        rp gate --test fake --baseline-dir B --repetitions 2 -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    ls B/*/fake.json >/dev/null || fail "the gate recorded no baseline"
    export EXPECT_KERNELS=concurrent
    ROCM_PERF_BACKEND=cupti rp gate --test fake --baseline-dir B --repetitions 2 \
        -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    ROCM_PERF_KERNEL_TIMING=parallel rp gate --test fake --baseline-dir B -- /bin/true
    expect_rc 2
    expect_err "ROCM_PERF_KERNEL_TIMING is 'parallel'; it takes concurrent or serial"
    # analyze takes the output folder, as report does; an empty folder is bad input.
    rp analyze D
    expect_rc 0
    grep -q '_Z4gemmPKfS0_Pfi\|gemm' out.txt || fail "analyze D printed no kernel table"
    # Its reports name the database read, which report reads again.
    rp analyze D --out R
    expect_rc 0
    grep -q "D/profile.db" R/dag.json || fail "R/dag.json does not name D/profile.db"
    rp report R
    expect_rc 0
    rp analyze D/cupti
    expect_rc 0
    mkdir -p empty
    rp analyze empty
    expect_rc 2
    expect_err "'empty' holds neither profile.db"
    rp profile --backend cupti --counters none -o D -- /bin/sh -c 'exit 4'
    expect_rc 3
    expect_err "the program exited with status 4"
    ROCM_PERF_CUPTI_LIB=$work/nothing rp profile --backend cupti -o D -- /bin/true
    expect_rc 3
    expect_err "ROCM_PERF_CUPTI_LIB names"
    ;;
counter_sample)
    # Counters on a sample: the plan the counter run gets, the options, an early end.
    : >fake_librpl_cupti.so
    export ROCM_PERF_CUPTI_LIB=$work/fake_librpl_cupti.so EXPECT_LIB=$work/fake_librpl_cupti.so
    export RPL_FIXTURE_TOOL FAKE_APP_DESC=$TESTDATA/double/trace.json EXPECT_COUNTERS=roofline
    gemm=_Z4gemmPKfS0_Pfi saxpy=_Z5saxpyfPKfPfi
    # The fixture dispatches gemm 4 times and saxpy 3 times.
    FAKE_APP_PLAN_COPY=$work/plan.txt rp profile --backend cupti -o D -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    grep -qx "3	$gemm" plan.txt && grep -qx "3	$saxpy" plan.txt || fail "plan: $(cat plan.txt)"
    EXPECT_SKIP=2 FAKE_APP_PLAN_COPY=$work/plan.txt rp profile --backend cupti --counter-skip 2 \
        -o D -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    grep -qx "2	$gemm" plan.txt && grep -qx "1	$saxpy" plan.txt || fail "plan: $(cat plan.txt)"
    EXPECT_DISPATCHES=all rp profile --backend cupti --counter-dispatches all -o D \
        -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    # An early end: the counter run has gemm's first 2 dispatches and saxpy's 3, all counted.
    "$PYTHON" - "$TESTDATA/double/trace.json" stop.json <<'PY' || fail "no stop description"
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["dispatches"]:
    if x["kernel"] == "gemm":
        x["count"] = 2
    x["counters"] = {"dram__bytes_read.sum": 4096}
json.dump(d, open(sys.argv[2], "w"))
PY
    FAKE_APP_STOP_DESC=$work/stop.json rp profile --backend cupti -o D -- "$TESTDATA/fake-cuda-app"
    expect_rc 0
    valid_profile D
    grep -q '^counters: measured on 5 of 7 dispatches (3 dispatches of each kernel; the counter run ended once they were' out.txt ||
        fail "the table does not say what was sampled: $(grep counters: out.txt)"
    "$PYTHON" - D/profile.json <<'PY' || fail "profile.json counter_sample is wrong"
import json, sys
s = json.load(open(sys.argv[1]))["counter_sample"]
assert s == {"skip": 0, "dispatches_per_kernel": 3, "dispatches_measured": 5, "dispatches": 7,
             "stopped_early": True}, s
PY
    # report DIR says it too; analyze DIR gives the count.
    rp report D
    expect_rc 0
    grep -q '^counters: measured on 5 of 7 dispatches (3 dispatches of each kernel' out.txt ||
        fail "report D does not say what was sampled"
    rp analyze D
    expect_rc 0
    grep -q '^counters: measured on 5 of 7 dispatches$' out.txt || fail "analyze D gives no count"
    rp profile --backend cupti --counter-dispatches 0 -o D -- "$TESTDATA/fake-cuda-app"
    expect_rc 2
    expect_err "counter-dispatches: '0' is not a count of 1 or more, nor 'all'"
    rp profile --backend cupti --counter-skip -1 -o D -- "$TESTDATA/fake-cuda-app"
    expect_rc 2
    expect_err "counter-skip: '-1' is not a count"
    ;;
seed_spellings)
    # The seed tool's spellings: our long options after the program, --json, --quiet.
    double_env
    FAKE_ROCPROF_DIR=$TESTDATA/double
    rp profile /bin/echo program output --backend rocprofv3 --counters none --out D --json
    expect_rc 0
    "$PYTHON" "$VALIDATE" "$SCHEMA" out.txt || fail "--json after the program: no profile.json"
    grep -q '^program output$' err.txt || fail "with --json the program's output is not on stderr"
    valid_profile D
    rp profile --backend rocprofv3 --counters none -o Q /bin/true --quiet
    expect_rc 0
    [ -s err.txt ] && fail "--quiet after the program still logged"
    [ -f Q/profile.json ] || fail "no Q/profile.json"
    # Once our long options have begun after the program, short ones are ours too.
    rm -rf Q
    rp profile /bin/true --backend rocprofv3 --counters none -o Q --json --quiet
    expect_rc 0
    [ -s err.txt ] && fail "--quiet after the program still logged"
    [ -f Q/profile.json ] || fail "no Q/profile.json"
    # The program's own options before ours: whose is --json is not clear.
    rp profile --backend rocprofv3 /bin/sh -c true --json
    expect_rc 2
    expect_err "'--json' after the program could be the program's own option"
    rp profile --backend rocprofv3 /bin/true --json extra
    expect_rc 2
    expect_err "'extra' follows rocm-perf's options after the program"
    # Without our options after it, the program keeps its own.
    rp profile --backend rocprofv3 --counters none -o S /bin/sh -c 'exit 0'
    expect_rc 0
    [ -f S/profile.json ] || fail "the program's own options were not passed on"
    # --no-rocprof with a program: run it plainly, wall-clock only.
    rp profile /bin/true --no-rocprof
    expect_rc 0
    grep -q "ran in .* without a profiler (--no-rocprof)" out.txt || fail "no plain-run line"
    rp profile /bin/false --no-rocprof
    expect_rc 3
    expect_err "the program exited with status 1"
    rp profile /bin/true --no-rocprof --json
    expect_rc 2
    ;;
usage)
    rp profile --help
    expect_rc 0
    grep -q 'usage: rocm-perf profile' out.txt || fail "no usage text"
    rp profile
    expect_rc 2
    rp profile --trace x.db -- /bin/true
    expect_rc 2
    expect_err "--trace is read only with --no-rocprof"
    rp profile --no-rocprof
    expect_rc 2
    rp profile --backend nsight -- /bin/true
    expect_rc 2
    expect_err "unknown backend 'nsight'"
    rp profile --kernel-timing fast -- /bin/true
    expect_rc 2
    expect_err "unknown kernel timing 'fast' (concurrent or serial)"
    : >lib.so
    ROCM_PERF_CUPTI_LIB=$work/lib.so rp profile --backend cupti --att -- /bin/true
    expect_rc 2
    expect_err "--att (thread trace) needs the rocprofv3 backend"
    PATH=$DOUBLE_BIN:$PATH rp profile --backend rocprofv3 --arch gfx1030 --counters roofline \
        -- /bin/true
    expect_rc 2
    expect_err "no roofline counter set for 'gfx1030'"
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
