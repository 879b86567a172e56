# RocmPerfLab.cmake: rocm_perf_add_kernel_test(), the CMake face of the
# performance gate.  Included by RocmPerfLabConfig.cmake (find_package) and
# by the project's own top-level CMakeLists.txt (add_subdirectory and
# FetchContent users get it from there).
#
#   rocm_perf_add_kernel_test(<name>
#       (SOURCES <file>... | COMMAND <exe> [<arg>...])
#       [KERNEL <regex>] [BASELINE_DIR <dir>] [TOLERANCE <pct>]
#       [REPETITIONS <n>] [WARMUP <n>] [ARCHITECTURES <arch>...]
#       [LABELS <label>...] [PROPERTIES <prop> <value>...]
#       [TUNE <space.json> [TUNE_ARGS <arg>...]])
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
# TUNE <space.json> adds a custom target <name>_tune that runs `rocm-perf
# autotune` on that search space (docs/schemas/autotune-space.schema.json):
# with SOURCES, every parameter P becomes -DP={P} of a build like the one
# above (one vendor: ROCM_PERF_TUNE_VENDOR, else the first built of hip,
# cuda) and the built program runs as is; with COMMAND, the arguments carry
# the {P} placeholders themselves.  KERNEL is the kernel measured; TUNE_ARGS
# are more autotune options (--budget 25%, --block "BM*BN/(TM*TN)" ...).
# The result goes to <build dir>/rocm-perf/<name>/tune.json and tune.svg,
# the measurement cache to <top build dir>/rocm-perf/autotune.db.
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
set(ROCM_PERF_TUNE_VENDOR "" CACHE STRING
    "The build <name>_tune targets tune: hip, cuda, or empty for the first one built")
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

# _rpl_compile_command(<out-var> <vendor> <archs>): the compiler and its
# flags for one vendor's build, up to the output and source arguments.
function(_rpl_compile_command out vendor archs)
    get_property(templates GLOBAL PROPERTY ROCM_PERF_TEMPLATES_DIR)
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
    set(${out} "${compiler}" ${flags} ${arch_flags} "-I${templates}" "-I${CMAKE_CURRENT_SOURCE_DIR}"
        PARENT_SCOPE)
    set(_rpl_lang ${lang} PARENT_SCOPE)
endfunction()

# _rpl_build_kernels(<out-var> <name> <vendor> <archs> <sources> <deps>):
# one custom command that builds the executable of one vendor.
function(_rpl_build_kernels out name vendor archs sources deps)
    get_property(templates GLOBAL PROPERTY ROCM_PERF_TEMPLATES_DIR)
    set(exe "${CMAKE_CURRENT_BINARY_DIR}/${name}-${vendor}")
    _rpl_compile_command(compile ${vendor} "${archs}")
    add_custom_command(OUTPUT "${exe}"
        COMMAND ${compile} -o "${exe}" ${_rpl_lang} ${sources}
        DEPENDS ${sources} ${deps} "${templates}/rpl_harness.h"
        COMMENT "rocm-perf kernel test ${name}: ${vendor} build for ${archs}"
        VERBATIM COMMAND_EXPAND_LISTS)
    set(${out} "${exe}" PARENT_SCOPE)
endfunction()

# _rpl_template_word(<out-var> <word> <literal>): one word quoted for an
# autotune template ('...' with ' written as '\''); a literal word also has
# its braces doubled, so that only the placeholders we add are placeholders.
function(_rpl_template_word out word literal)
    if(literal)
        string(REPLACE "{" "{{" word "${word}")
        string(REPLACE "}" "}}" word "${word}")
    endif()
    string(REPLACE "'" "'\\''" word "${word}")
    set(${out} "'${word}'" PARENT_SCOPE)
endfunction()

# _rpl_template(<out-var> <literal> <word>...): the words as one template string.
function(_rpl_template out literal)
    set(text "")
    foreach(w IN LISTS ARGN)
        _rpl_template_word(q "${w}" ${literal})
        string(APPEND text " ${q}")
    endforeach()
    string(STRIP "${text}" text)
    set(${out} "${text}" PARENT_SCOPE)
endfunction()

# _rpl_space_params(<out-var> <fn> <space.json>): the parameter names of a search space.
function(_rpl_space_params out fn space)
    if(NOT EXISTS "${space}")
        message(FATAL_ERROR "${fn}: TUNE file '${space}' does not exist")
    endif()
    file(READ "${space}" json)
    string(JSON n ERROR_VARIABLE err LENGTH "${json}" parameters)
    if(err OR n EQUAL 0)
        message(FATAL_ERROR "${fn}: TUNE file '${space}' is not a search space (no 'parameters'): ${err}")
    endif()
    math(EXPR last "${n} - 1")
    set(names "")
    foreach(i RANGE ${last})
        string(JSON p ERROR_VARIABLE err GET "${json}" parameters ${i} name)
        if(err OR NOT p MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
            message(FATAL_ERROR "${fn}: TUNE file '${space}': parameter ${i} has no valid 'name'")
        endif()
        list(APPEND names "${p}")
    endforeach()
    set(${out} ${names} PARENT_SCOPE)
endfunction()

# _rpl_json_words(<out-var> <word>...): the words as a JSON array of strings.
function(_rpl_json_words out)
    set(items "")
    foreach(w IN LISTS ARGN)
        string(REPLACE "\\" "\\\\" w "${w}")
        string(REPLACE "\"" "\\\"" w "${w}")
        list(APPEND items "\"${w}\"")
    endforeach()
    list(JOIN items ", " joined)
    set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# _rpl_target_json(<name> <vendor> <archs> <kernel> <sources>...): what `rocm-perf optimize
# --test <name> --build-dir <build>` reads, <build>/rocm-perf/<name>/target.json
# (docs/schemas/target.schema.json): the kernel source first, the build of the test
# program with the source as {src}, the device code object for {arch}, the program.
function(_rpl_target_json name vendor archs kernel)
    set(sources ${ARGN})
    list(POP_FRONT sources first)
    _rpl_compile_command(compile ${vendor} "${archs}")
    get_property(templates GLOBAL PROPERTY ROCM_PERF_TEMPLATES_DIR)
    set(includes "-I${templates}" "-I${CMAKE_CURRENT_SOURCE_DIR}")
    if(vendor STREQUAL "hip")
        separate_arguments(flags UNIX_COMMAND "${ROCM_PERF_HIPCC_FLAGS}")
        set(codeobj "${ROCM_PERF_HIPCC}" ${flags} ${includes} --genco "--offload-arch={arch}")
    else()
        separate_arguments(flags UNIX_COMMAND "${ROCM_PERF_NVCC_FLAGS}")
        set(codeobj "${ROCM_PERF_NVCC}" ${flags} ${includes} -cubin "-arch={arch}")
    endif()
    _rpl_json_words(build ${compile} -o "{out}" ${_rpl_lang} "{src}" ${sources})
    _rpl_json_words(co ${codeobj} -o "{out}" ${_rpl_lang} "{src}")
    _rpl_json_words(all "${first}" ${sources})
    # KERNEL is a regex for the gate; the optimizer wants a name.
    if(kernel MATCHES "^[A-Za-z_][A-Za-z0-9_:]*$")
        set(kernel "\"${kernel}\"")
    else()
        set(kernel null)
    endif()
    file(WRITE "${CMAKE_BINARY_DIR}/rocm-perf/${name}/target.json"
"{
  \"schema_version\": \"1.0\",
  \"name\": \"${name}\",
  \"sources\": ${all},
  \"kernel\": ${kernel},
  \"build_command\": ${build},
  \"codeobj_command\": ${co},
  \"test_command\": [\"{out}\"],
  \"seed_flag\": \"--seed\",
  \"baseline\": null
}
")
endfunction()

function(rocm_perf_add_kernel_test name)
    cmake_parse_arguments(PARSE_ARGV 1 arg ""
        "KERNEL;BASELINE_DIR;TOLERANCE;REPETITIONS;WARMUP;TUNE"
        "SOURCES;COMMAND;ARCHITECTURES;LABELS;PROPERTIES;TUNE_ARGS")
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
    if(DEFINED arg_TUNE_ARGS AND NOT DEFINED arg_TUNE)
        message(FATAL_ERROR "${fn}: TUNE_ARGS without TUNE <space.json>")
    endif()
    if(DEFINED arg_TUNE)
        get_filename_component(tune_space "${arg_TUNE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
        _rpl_space_params(tune_params "${fn}" "${tune_space}")
    endif()
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
    set(tune_build "")
    set(tune_cmd "")
    set(tune_arch "")
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
            if(DEFINED arg_TUNE AND NOT tune_build AND
               (NOT ROCM_PERF_TUNE_VENDOR OR ROCM_PERF_TUNE_VENDOR STREQUAL vendor))
                # The same build with each parameter as a -D definition, into {OUT}.
                _rpl_compile_command(compile ${vendor} "${varchs}")
                _rpl_template(tune_build TRUE ${compile})
                foreach(p IN LISTS tune_params)
                    string(APPEND tune_build " '-D${p}={${p}}'")
                endforeach()
                _rpl_template(tail TRUE ${_rpl_lang} ${sources})
                string(APPEND tune_build " -o '{OUT}' ${tail}")
                set(tune_cmd "'{OUT}'")
                list(GET varchs 0 tune_arch)
            endif()
            if(NOT exes)
                _rpl_target_json("${name}" ${vendor} "${varchs}" "${arg_KERNEL}" ${sources})
            endif()
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
        if(DEFINED arg_TUNE)
            _rpl_template(tune_exe TRUE "${exe}")
            _rpl_template(tune_args FALSE ${app_args})
            string(STRIP "${tune_exe} ${tune_args}" tune_cmd)
            list(LENGTH arg_ARCHITECTURES nar)
            if(nar GREATER 0)
                list(GET arg_ARCHITECTURES 0 tune_arch)
            endif()
        endif()
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
    if(DEFINED arg_TUNE AND NOT tune_cmd)
        message(STATUS "rocm-perf: ${name}: no ${ROCM_PERF_TUNE_VENDOR} build to tune; no ${name}_tune target")
    elseif(DEFINED arg_TUNE)
        set(tune_opts --space "${tune_space}" --cmd-template "${tune_cmd}"
            --json "${reports}/tune.json" --plot "${reports}/tune.svg"
            --cache "${CMAKE_BINARY_DIR}/rocm-perf/autotune.db" --work-dir "${reports}/tune-work")
        if(tune_build)
            list(APPEND tune_opts --build-template "${tune_build}")
        endif()
        if(tune_arch AND tune_build)
            list(APPEND tune_opts --arch "${tune_arch}")
        endif()
        if(DEFINED arg_KERNEL)
            list(APPEND tune_opts --kernel "${arg_KERNEL}")
        endif()
        if(DEFINED arg_WARMUP)
            list(APPEND tune_opts --warmup "${arg_WARMUP}")
        endif()
        add_custom_target("${name}_tune"
            COMMAND "${CMAKE_COMMAND}" -E make_directory "${reports}"
            COMMAND "${tool}" autotune ${tune_opts} ${arg_TUNE_ARGS}
            WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
            COMMENT "rocm-perf autotune ${name} on ${arg_TUNE}"
            USES_TERMINAL VERBATIM)
    endif()
    if(arg_PROPERTIES)
        set_tests_properties(${tests} PROPERTIES ${arg_PROPERTIES})
    endif()
endfunction()
