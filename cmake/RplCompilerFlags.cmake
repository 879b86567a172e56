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
