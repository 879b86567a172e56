# cmake -DLIB=librpl_hsa.so -DNM=nm -P check_exports.cmake
# The HSA runtime looks for OnLoad and OnUnload; nothing else may leak out.
execute_process(COMMAND ${NM} -D --defined-only ${LIB}
    OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm -D failed on ${LIB}")
endif()
foreach(entry OnLoad OnUnload)
    if(NOT syms MATCHES "[0-9a-f]+ T ${entry}\n")
        message(FATAL_ERROR "${LIB} does not export ${entry}:\n${syms}")
    endif()
endforeach()
string(REGEX REPLACE "[0-9a-f]+ T (OnLoad|OnUnload)\n" "" rest "${syms}")
if(rest MATCHES "[0-9a-f]+ [TDBRW] [A-Za-z_][A-Za-z0-9_]*")
    message(FATAL_ERROR "${LIB} exports '${CMAKE_MATCH_0}' besides OnLoad and OnUnload")
endif()
message(STATUS "${LIB}: exports OnLoad and OnUnload only")
