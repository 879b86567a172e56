# cmake -DCMD=rpl_fixture -DDESC=desc.json -DOUT=out.db -DSQLITE3=sqlite3 -P expect_mutation.cmake
# --sql with {{uuid}} reaches the suffixed table: dispatch 3 ends 5 ns before it starts.
file(REMOVE "${OUT}")
execute_process(COMMAND "${CMD}" "${DESC}" "${OUT}"
                        --sql "UPDATE rocpd_kernel_dispatch{{uuid}} SET end = start - 5 WHERE id = 3"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rpl_fixture failed (${rc}): ${err}")
endif()
execute_process(COMMAND "${SQLITE3}" "${OUT}"
                        "SELECT \"end\" - start FROM rocpd_kernel_dispatch WHERE id = 3"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "-5")
    message(FATAL_ERROR "expected -5 for dispatch 3, got '${out}' (${rc})")
endif()
