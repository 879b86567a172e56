#!/usr/bin/env bash
# RocmPerfLabGate.sh: the command of the tests that rocm_perf_add_kernel_test()
# adds (RocmPerfLab.cmake).  Not meant to be run by hand.
#
#   RocmPerfLabGate.sh static  ROCM_PERF REPORT_DIR ARCH=FILE... -- GATE_ARGS...
#       one `rocm-perf gate --static FILE --arch ARCH` per pair; the worst
#       exit status wins (error 2/3 > fail 1 > skip 77 > pass 0).
#   RocmPerfLabGate.sh dynamic ROCM_PERF REPORT_DIR VENDOR=EXE... -- GATE_ARGS... -- APP_ARGS...
#       VENDOR is amd, nvidia or any: the program for the GPU this machine
#       has (as `rocm-perf gpus` lists them) runs under `rocm-perf gate --
#       EXE APP_ARGS`; exit 77 when there is none.  Under CTest resource
#       allocation the GPU given to the test (CTEST_RESOURCE_GROUP_0_GPUS=
#       id:N,...) is the only one it sees; ids are those of `rocm-perf gpus`:
#       AMD GPUs first, then NVIDIA ones.
# Reports go to REPORT_DIR/<static-ARCH|gpu>.{junit.xml,json,md}, announced
# as [[ATTACHMENT|path]] lines for CI systems that collect them.
set -u
mode=$1 rp=$2 reports=$3
shift 3
pairs=()
while (($#)) && [[ $1 != -- ]]; do pairs+=("$1"); shift; done
(($#)) && shift
gate=()
while (($#)) && [[ $1 != -- ]]; do gate+=("$1"); shift; done
(($#)) && shift
app=("$@")
mkdir -p "$reports" || exit 3

run_gate() { # run_gate STEM ARGS...: one gate run, reports at STEM.*
    local stem=$1 rc f
    shift
    rm -f "$stem.junit.xml" "$stem.json" "$stem.md"
    "$rp" gate "${gate[@]}" --junit "$stem.junit.xml" --json "$stem.json" \
        --markdown "$stem.md" "$@"
    rc=$?
    for f in "$stem.junit.xml" "$stem.json" "$stem.md"; do
        [[ -f $f ]] && echo "[[ATTACHMENT|$f]]"
    done
    return $rc
}

rank() { case $1 in 0) echo 0 ;; 77) echo 1 ;; 1) echo 2 ;; *) echo 3 ;; esac; }

if [[ $mode == static ]]; then
    worst=0
    for pair in "${pairs[@]}"; do
        run_gate "$reports/static-${pair%%=*}" --arch "${pair%%=*}" --static "${pair#*=}"
        rc=$?
        (($(rank $rc) > $(rank $worst))) && worst=$rc
    done
    exit $worst
fi

# The GPUs as `rocm-perf gpus` lists them: "ID VENDOR ARCH MODEL FOUND-AT".
amd_gpus=0 nv_gpus=0
while read -r _ gpu_vendor _; do
    case $gpu_vendor in
    amd) amd_gpus=$((amd_gpus + 1)) ;;
    nvidia) nv_gpus=$((nv_gpus + 1)) ;;
    esac
done < <("$rp" -q gpus | tail -n +2)
exe="" vendor=""
for pair in "${pairs[@]}"; do
    case ${pair%%=*} in
    amd) ((amd_gpus > 0)) && exe=${pair#*=} vendor=amd ;;
    nvidia) ((nv_gpus > 0)) && exe=${pair#*=} vendor=nvidia ;;
    any) ((amd_gpus > 0)) && vendor=amd; ((nv_gpus > 0)) && [[ -z $vendor ]] && vendor=nvidia
        [[ -n $vendor ]] && exe=${pair#*=} ;;
    esac
    [[ -n $exe ]] && break
done
if [[ -z $exe ]]; then
    echo "rocm-perf: no GPU for this test (built for: ${pairs[*]%%=*}; AMD GPUs: $amd_gpus," \
        "NVIDIA GPUs: $nv_gpus)"
    exit 77
fi
group=${CTEST_RESOURCE_GROUP_0_GPUS:-}
if [[ -n ${CTEST_RESOURCE_GROUP_COUNT:-} && $group =~ id:([0-9]+) ]]; then
    id=${BASH_REMATCH[1]}
    if [[ $vendor == amd ]]; then
        export HIP_VISIBLE_DEVICES=$id
    else
        export CUDA_VISIBLE_DEVICES=$((id - amd_gpus))
    fi
    echo "rocm-perf: GPU $id from CTest resource allocation"
fi
run_gate "$reports/gpu" -- "$exe" "${app[@]}"
