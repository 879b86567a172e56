# cmake -DSRC=<source> -DBIN=<empty build dir> -P build_without_hsa.cmake
# Configure and build rocm-perf with the HSA headers out of reach: no
# librpl_hsa.so, and the HSA replay backend that only says it is missing.
file(REMOVE_RECURSE ${BIN})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DRPL_HSA_INCLUDE_DIR=/nonexistent
        -DRPL_BUILD_TESTS=OFF -DRPL_WERROR=ON
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configure without the HSA headers failed:\n${out}\n${err}")
endif()
if(NOT out MATCHES "HSA headers OFF")
    message(FATAL_ERROR "configure did not report the HSA headers as absent:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} -j2 --target rocm-perf
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "build without the HSA headers failed:\n${out}\n${err}")
endif()
file(GLOB_RECURSE tool ${BIN}/*librpl_hsa.so)
if(tool)
    message(FATAL_ERROR "librpl_hsa.so was built without the HSA headers: ${tool}")
endif()
execute_process(COMMAND ${BIN}/src/cli/rocm-perf --help RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rocm-perf --help failed with ${rc} in the build without the HSA headers")
endif()
file(REMOVE_RECURSE ${BIN})
message(STATUS "rocm-perf builds and runs without the HSA headers; no librpl_hsa.so built")
