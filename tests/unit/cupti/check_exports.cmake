# cmake -DLIB=librpl_cupti.so -DNM=nm -P check_exports.cmake
execute_process(COMMAND ${NM} -D --defined-only ${LIB}
    OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm -D failed on ${LIB}")
endif()
if(NOT syms MATCHES "[0-9a-f]+ T InitializeInjection\n")
    message(FATAL_ERROR "${LIB} does not export InitializeInjection:\n${syms}")
endif()
if(syms MATCHES " [TDB] (rpl_|cr_)[a-z_]*")
    message(FATAL_ERROR "${LIB} exports internal symbol '${CMAKE_MATCH_0}'")
endif()
message(STATUS "${LIB}: exports InitializeInjection only")
