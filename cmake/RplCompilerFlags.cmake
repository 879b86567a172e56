# Warning and sanitizer flags shared by every target of the project.
add_library(rpl_warnings INTERFACE)
target_compile_options(rpl_warnings INTERFACE
    -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
    -Wno-unused-parameter $<$<BOOL:${RPL_WERROR}>:-Werror>)
target_compile_definitions(rpl_warnings INTERFACE _POSIX_C_SOURCE=200809L _DEFAULT_SOURCE)

set(RPL_SANITIZE_FLAGS -fsanitize=address,undefined)
if(RPL_SANITIZE)
    add_compile_options(${RPL_SANITIZE_FLAGS} -fno-omit-frame-pointer
                        -fno-sanitize-recover=undefined)
    add_link_options(${RPL_SANITIZE_FLAGS})
endif()

# The injection libraries (librpl_cupti.so, librpl_hsa.so) link with --no-undefined,
# so that a library missing from their link line fails the build, not the program
# that loads them.  Not where clang sanitizes: clang links the sanitizer runtime
# (and the coverage callbacks of -fsanitize=fuzzer-no-link) into executables only,
# and an instrumented shared object takes those symbols from the program that
# loads it (gcc instead links libasan.so into the shared object).
if(RPL_SANITIZE AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    set(RPL_SHARED_NO_UNDEFINED "")
else()
    set(RPL_SHARED_NO_UNDEFINED "LINKER:--no-undefined")
endif()
