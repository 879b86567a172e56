# RocmPerfLab.cmake: rocm_perf_add_kernel_test(), the CMake face of the
# performance gate.  Included by RocmPerfLabConfig.cmake (find_package) and
# by the project's own top-level CMakeLists.txt (add_subdirectory and
# FetchContent users get it from there).
#
#   rocm_perf_add_kernel_test(<name>
#       (SOURCES <file>... | COMMAND <exe> [<arg>...])
#       [KERNEL <regex>] [BASELINE_DIR <dir>] [TOLERANCE <pct>]
#       [REPETITIONS <n>] [WARMUP <n>] [ARCHITECTURES <arch>...]
#       [LABELS <label>...] [PROPERTIES <prop> <value>...])
#
# adds two tests:
#   <name>.static  the resource and occupancy gate (registers, LDS, scratch,
#                  spills, occupancy) on the compiled code objects, per
#                  architecture; needs no GPU.  Labels: perf, static.
#   <name>         the runtime gate: the program runs under the profiler and
#                  its kernels' device durations are compared with the
#                  baseline.  Labels: perf, gpu; RESOURCE_GROUPS "gpus:1";
#                  skipped (exit 77) where no GPU for its build exists.
# Both compare with <BASELINE_DIR>/<arch>/<name>.json and write JUnit, JSON
# and Markdown reports below <build dir>/rocm-perf/<name>/ (ATTACHED_FILES).
#
# SOURCES are compiled once per vendor, without enable_language(): every
# gfx* architecture into one executable with hipcc (-x hip), every sm_*
# architecture into one with nvcc (-x cu), each only where that compiler
# exists.  A source therefore serves both vendors when it uses
# rpl_harness.h (on the include path); list only the architectures a
# vendor-specific source supports.  Files ending in .h, .hpp, .cuh or .inc
# are dependencies, not compiled.  enable_language(HIP) is not used because
# Debian's ROCm 5.2 hipcc is not a compiler CMake's HIP language accepts, and
# one rule for both vendors keeps the two builds alike.
#
# With COMMAND the program is yours (a target name or a path); the static test
# exists only when ARCHITECTURES names what that program was built for.
# Arguments after COMMAND <exe> run up to the next keyword of this function.
#
# Settings (cache variables): ROCM_PERF_ARCHITECTURES (default
# architectures), ROCM_PERF_HIPCC, ROCM_PERF_NVCC, ROCM_PERF_HIPCC_FLAGS,
# ROCM_PERF_NVCC_FLAGS, ROCM_PERF_BASELINE_DIR (default baseline directory),
# ROCM_PERF_ALLOW_MISSING_BASELINE, ROCM_PERF_EXECUTABLE (a rocm-perf to use
# instead of the RocmPerfLab::rocm-perf target).  ROCM_PERF_UPDATE_BASELINES=1
# in the environment of ctest records baselines instead of comparing.
include_guard(GLOBAL)

set(ROCM_PERF_ARCHITECTURES "gfx90a;gfx940;sm_90" CACHE STRING
    "Architectures rocm_perf_add_kernel_test builds for when ARCHITECTURES is not given")
set(ROCM_PERF_HIPCC_FLAGS "-O3" CACHE STRING "Flags of the hipcc builds of kernel tests")
set(ROCM_PERF_NVCC_FLAGS "-O3" CACHE STRING "Flags of the nvcc builds of kernel tests")
set(ROCM_PERF_BASELINE_DIR "" CACHE PATH
    "Baseline directory of kernel tests without BASELINE_DIR (empty: <source dir>/baselines)")
option(ROCM_PERF_ALLOW_MISSING_BASELINE "A kernel test without a baseline passes with a warning" OFF)
set(ROCM_PERF_EXECUTABLE "" CACHE FILEPATH
    "rocm-perf to run the gates with (empty: the RocmPerfLab::rocm-perf target)")
find_program(ROCM_PERF_HIPCC NAMES hipcc PATHS ENV ROCM_PATH /opt/rocm PATH_SUFFIXES bin
             DOC "hipcc for the gfx* builds of kernel tests")
find_program(ROCM_PERF_NVCC NAMES nvcc PATHS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin
             DOC "nvcc for the sm_* builds of kernel tests")
find_program(ROCM_PERF_BASH NAMES bash DOC "bash, which runs the kernel tests' gate script")

# The source tree keeps the harness beside this file; installed and
# build-tree packages set the property from RocmPerfLabConfig.cmake.
get_property(_rpl_templates GLOBAL PROPERTY ROCM_PERF_TEMPLATES_DIR)
if(NOT _rpl_templates AND EXISTS "${CMAKE_CURRENT_LIST_DIR}/../templates/rpl_harness.h")
    get_filename_component(_rpl_templates "${CMAKE_CURRENT_LIST_DIR}/../templates" ABSOLUTE)
    set_property(GLOBAL PROPERTY ROCM_PERF_TEMPLATES_DIR "${_rpl_templates}")
endif()
unset(_rpl_templates)

# _rpl_build_kernels(<out-var> <name> <vendor> <archs> <sources> <deps>):
# one custom command that builds the executable of one vendor.
function(_rpl_build_kernels out name vendor archs sources deps)
    get_property(templates GLOBAL PROPERTY ROCM_PERF_TEMPLATES_DIR)
    set(exe "${CMAKE_CURRENT_BINARY_DIR}/${name}-${vendor}")
    set(arch_flags "")
    if(vendor STREQUAL "hip")
        set(compiler "${ROCM_PERF_HIPCC}")
        separate_arguments(flags UNIX_COMMAND "${ROCM_PERF_HIPCC_FLAGS}")
        foreach(arch IN LISTS archs)
            list(APPEND arch_flags "--offload-arch=${arch}")
        endforeach()
        set(lang -x hip)
    else()
        set(compiler "${ROCM_PERF_NVCC}")
        separate_arguments(flags UNIX_COMMAND "${ROCM_PERF_NVCC_FLAGS}")
        foreach(arch IN LISTS archs)
            string(REPLACE "sm_" "" cc "${arch}")
            list(APPEND arch_flags -gencode "arch=compute_${cc},code=sm_${cc}")
        endforeach()
        set(lang -x cu)
    endif()
    add_custom_command(OUTPUT "${exe}"
        COMMAND "${compiler}" ${flags} ${arch_flags} "-I${templates}" "-I${CMAKE_CURRENT_SOURCE_DIR}"
                -o "${exe}" ${lang} ${sources}
        DEPENDS ${sources} ${deps} "${templates}/rpl_harness.h"
        COMMENT "rocm-perf kernel test ${name}: ${vendor} build for ${archs}"
        VERBATIM COMMAND_EXPAND_LISTS)
    set(${out} "${exe}" PARENT_SCOPE)
endfunction()

function(rocm_perf_add_kernel_test name)
    cmake_parse_arguments(PARSE_ARGV 1 arg ""
        "KERNEL;BASELINE_DIR;TOLERANCE;REPETITIONS;WARMUP"
        "SOURCES;COMMAND;ARCHITECTURES;LABELS;PROPERTIES")
    set(fn "rocm_perf_add_kernel_test(${name})")
    if(arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "${fn}: unknown argument(s) '${arg_UNPARSED_ARGUMENTS}'")
    endif()
    if(arg_KEYWORDS_MISSING_VALUES)
        message(FATAL_ERROR "${fn}: keyword(s) without a value: ${arg_KEYWORDS_MISSING_VALUES}")
    endif()
    if(NOT name MATCHES "^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")
        message(FATAL_ERROR "${fn}: a test name holds letters, digits and _ . + - only")
    endif()
    if((arg_SOURCES AND arg_COMMAND) OR (NOT arg_SOURCES AND NOT arg_COMMAND))
        message(FATAL_ERROR "${fn}: give exactly one of SOURCES or COMMAND")
    endif()
    if(DEFINED arg_TOLERANCE AND NOT arg_TOLERANCE MATCHES "^[0-9]+(\\.[0-9]+)?%?$")
        message(FATAL_ERROR "${fn}: TOLERANCE is a percentage such as 3 or 2.5%, not '${arg_TOLERANCE}'")
    endif()
    foreach(kw REPETITIONS WARMUP)
        if(DEFINED arg_${kw} AND NOT arg_${kw} MATCHES "^[0-9]+$")
            message(FATAL_ERROR "${fn}: ${kw} is a whole number, not '${arg_${kw}}'")
        endif()
    endforeach()
    list(LENGTH arg_PROPERTIES nprops)
    math(EXPR odd "${nprops} % 2")
    if(odd)
        message(FATAL_ERROR "${fn}: PROPERTIES takes pairs of a property and its value")
    endif()
    set(archs ${arg_ARCHITECTURES})
    if(NOT archs AND arg_SOURCES)
        set(archs ${ROCM_PERF_ARCHITECTURES})
    endif()
    set(amd_archs "")
    set(nv_archs "")
    foreach(arch IN LISTS archs)
        if(arch MATCHES "^gfx[0-9a-f]+$")
            list(APPEND amd_archs "${arch}")
        elseif(arch MATCHES "^sm_[0-9]+a?$")
            list(APPEND nv_archs "${arch}")
        else()
            message(FATAL_ERROR "${fn}: '${arch}' is not an architecture (gfx90a, gfx942, sm_90 ...)")
        endif()
    endforeach()

    if(ROCM_PERF_EXECUTABLE)
        set(tool "${ROCM_PERF_EXECUTABLE}")
    elseif(TARGET RocmPerfLab::rocm-perf)
        set(tool "$<TARGET_FILE:RocmPerfLab::rocm-perf>")
    else()
        message(FATAL_ERROR "${fn}: no rocm-perf: call find_package(RocmPerfLab) first "
                            "or set ROCM_PERF_EXECUTABLE")
    endif()
    if(NOT ROCM_PERF_BASH)
        message(FATAL_ERROR "${fn}: bash not found; the gate script needs it")
    endif()
    if(arg_BASELINE_DIR)
        get_filename_component(baselines "${arg_BASELINE_DIR}" ABSOLUTE
                               BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    elseif(ROCM_PERF_BASELINE_DIR)
        set(baselines "${ROCM_PERF_BASELINE_DIR}")
    else()
        set(baselines "${CMAKE_CURRENT_SOURCE_DIR}/baselines")
    endif()

    # The programs: built here from SOURCES, or the user's COMMAND.
    set(static_pairs "")
    set(dynamic_pairs "")
    set(app_args "")
    if(arg_SOURCES)
        set(sources "")
        set(deps "")
        foreach(src IN LISTS arg_SOURCES)
            get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
            if(src MATCHES "\\.(h|hpp|cuh|inc)$")
                list(APPEND deps "${src}")
            else()
                list(APPEND sources "${src}")
            endif()
        endforeach()
        set(exes "")
        foreach(vendor hip cuda)
            if(vendor STREQUAL "hip")
                set(varchs ${amd_archs})
                set(compiler "${ROCM_PERF_HIPCC}")
                set(key amd)
            else()
                set(varchs ${nv_archs})
                set(compiler "${ROCM_PERF_NVCC}")
                set(key nvidia)
            endif()
            if(NOT varchs)
                continue()
            endif()
            if(NOT compiler)
                message(STATUS "rocm-perf: ${name}: no ${vendor} compiler, not built for ${varchs}")
                continue()
            endif()
            _rpl_build_kernels(exe "${name}" ${vendor} "${varchs}" "${sources}" "${deps}")
            list(APPEND exes "${exe}")
            list(APPEND dynamic_pairs "${key}=${exe}")
            foreach(arch IN LISTS varchs)
                list(APPEND static_pairs "${arch}=${exe}")
            endforeach()
        endforeach()
        if(NOT exes)
            message(STATUS "rocm-perf: ${name}: no compiler for any of '${archs}'; no tests added")
            return()
        endif()
        add_custom_target("${name}.kernels" ALL DEPENDS ${exes})
    else()
        list(POP_FRONT arg_COMMAND exe)
        set(app_args ${arg_COMMAND})
        if(TARGET "${exe}")
            set(exe "$<TARGET_FILE:${exe}>")
        endif()
        set(dynamic_pairs "any=${exe}")
        foreach(arch IN LISTS arg_ARCHITECTURES)
            list(APPEND static_pairs "${arch}=${exe}")
        endforeach()
    endif()

    set(gate_args --test "${name}" --baseline-dir "${baselines}")
    if(DEFINED arg_KERNEL)
        list(APPEND gate_args --kernel "${arg_KERNEL}")
    endif()
    if(ROCM_PERF_ALLOW_MISSING_BASELINE)
        list(APPEND gate_args --allow-missing-baseline)
    endif()
    set(runtime_args "")
    if(DEFINED arg_TOLERANCE)
        string(REGEX REPLACE "%$" "" tol "${arg_TOLERANCE}")
        list(APPEND runtime_args --tolerance "${tol}%")
    endif()
    if(DEFINED arg_REPETITIONS)
        list(APPEND runtime_args --repetitions "${arg_REPETITIONS}")
    endif()
    if(DEFINED arg_WARMUP)
        list(APPEND runtime_args --warmup "${arg_WARMUP}")
    endif()

    set(static_labels perf static ${arg_LABELS})
    set(gpu_labels perf gpu ${arg_LABELS})
    set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/RocmPerfLabGate.sh")
    set(reports "${CMAKE_CURRENT_BINARY_DIR}/rocm-perf/${name}")
    set(tests "")
    if(static_pairs)
        set(attached "")
        foreach(pair IN LISTS static_pairs)
            string(REGEX REPLACE "=.*" "" arch "${pair}")
            foreach(ext junit.xml json md)
                list(APPEND attached "${reports}/static-${arch}.${ext}")
            endforeach()
        endforeach()
        add_test(NAME "${name}.static"
                 COMMAND "${ROCM_PERF_BASH}" "${script}" static "${tool}" "${reports}"
                         ${static_pairs} -- ${gate_args})
        set_tests_properties("${name}.static" PROPERTIES
            LABELS "${static_labels}" ATTACHED_FILES "${attached}")
        list(APPEND tests "${name}.static")
    else()
        message(STATUS "rocm-perf: ${name}: no ARCHITECTURES for COMMAND, no static test")
    endif()
    add_test(NAME "${name}"
             COMMAND "${ROCM_PERF_BASH}" "${script}" dynamic "${tool}" "${reports}"
                     ${dynamic_pairs} -- ${gate_args} ${runtime_args} -- ${app_args})
    set_tests_properties("${name}" PROPERTIES
        LABELS "${gpu_labels}" RESOURCE_GROUPS "gpus:1" SKIP_RETURN_CODE 77
        ATTACHED_FILES "${reports}/gpu.junit.xml;${reports}/gpu.json;${reports}/gpu.md")
    list(APPEND tests "${name}")
    if(arg_PROPERTIES)
        set_tests_properties(${tests} PROPERTIES ${arg_PROPERTIES})
    endif()
endfunction()
