# cmake -DDB=fixture.db -DSQLITE3=sqlite3 -P expect_views.cmake
# The data views keep every row of their tables, foreign keys hold, and the
# summary views run.
execute_process(COMMAND "${SQLITE3}" "${DB}"
    "PRAGMA foreign_key_check;
     SELECT (SELECT count(*) FROM kernels) = (SELECT count(*) FROM rocpd_kernel_dispatch);
     SELECT (SELECT count(*) FROM memory_copies) = (SELECT count(*) FROM rocpd_memory_copy);
     SELECT (SELECT count(*) FROM regions) = (SELECT count(*) FROM rocpd_region);
     SELECT (SELECT count(*) FROM counters_collection) =
            (SELECT count(*) FROM (SELECT DISTINCT event_id, pmc_id FROM rocpd_pmc_event));
     SELECT (SELECT count(*) FROM top_kernels) = (SELECT count(DISTINCT kernel_id) FROM rocpd_kernel_dispatch);
     SELECT count(*) >= 0 FROM busy;
     SELECT count(*) >= 0 FROM top;"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "1\n1\n1\n1\n1\n1\n1\n")
    message(FATAL_ERROR "view checks failed on ${DB} (rc ${rc}): '${out}' ${err}")
endif()
