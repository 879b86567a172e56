# The table of fuzz targets that tests/fuzz/run-fuzz.sh reads:
# <build>/fuzz-targets.tsv, one line per fuzz_* executable of the tree.

# rpl_fuzz_corpus(<fuzzer> SEEDS <dir>... [DICT <file>] [MAX_LEN <bytes>]
#                 [NEEDS <target>...] [SEED_TESTS <test>...]): what run-fuzz.sh
# fuzzes <fuzzer> with.  Seeds written by the build come from the NEEDS targets,
# seeds written by ctest from the SEED_TESTS tests (and the fixtures they need).
function(rpl_fuzz_corpus name)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "DICT;MAX_LEN" "SEEDS;NEEDS;SEED_TESTS")
    if(NOT TARGET ${name} OR NOT arg_SEEDS OR arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "rpl_fuzz_corpus(${name}): a fuzz target and its SEEDS")
    endif()
    set_target_properties(${name} PROPERTIES RPL_FUZZ_SEEDS "${arg_SEEDS}"
        RPL_FUZZ_DICT "${arg_DICT}" RPL_FUZZ_MAX_LEN "${arg_MAX_LEN}"
        RPL_FUZZ_NEEDS "${arg_NEEDS}" RPL_FUZZ_SEED_TESTS "${arg_SEED_TESTS}")
endfunction()

# A field of the table: "-" when empty (tabs are whitespace to the shell's
# read, so an empty field would vanish), words joined by `sep`.
function(_rpl_fuzz_field out value sep)
    if(value STREQUAL "")
        set(value "-")
    endif()
    string(REPLACE ";" "${sep}" value "${value}")
    set(${out} "${value}" PARENT_SCOPE)
endfunction()

# The rows of the fuzz_* executables defined in <dir> and below, in <out>.
function(_rpl_fuzz_rows dir out)
    set(rows "")
    get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
        get_target_property(type ${t} TYPE)
        if(NOT t MATCHES "^fuzz_" OR NOT type STREQUAL "EXECUTABLE")
            continue()
        endif()
        get_target_property(seeds ${t} RPL_FUZZ_SEEDS)
        if(NOT seeds)
            message(WARNING "${t} has no rpl_fuzz_corpus(): run-fuzz.sh starts it with no seeds")
        endif()
        string(APPEND rows "${t}\t$<TARGET_FILE:${t}>")
        foreach(p MAX_LEN DICT NEEDS SEED_TESTS SEEDS)
            get_target_property(v ${t} RPL_FUZZ_${p})
            if(NOT v)
                set(v "")
            endif()
            if(p STREQUAL "SEEDS")
                _rpl_fuzz_field(v "${v}" "\t")
            else()
                _rpl_fuzz_field(v "${v}" " ")
            endif()
            string(APPEND rows "\t${v}")
        endforeach()
        string(APPEND rows "\n")
    endforeach()
    get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
    foreach(d IN LISTS subdirs)
        _rpl_fuzz_rows("${d}" sub)
        string(APPEND rows "${sub}")
    endforeach()
    set(${out} "${rows}" PARENT_SCOPE)
endfunction()

# Columns: name, program, max_len, dictionary, targets to build, ctest tests
# that write seeds, then the seed folders.
function(rpl_write_fuzz_table)
    _rpl_fuzz_rows("${CMAKE_CURRENT_SOURCE_DIR}" table)
    file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/fuzz-targets.tsv" CONTENT "${table}")
endfunction()
