# Warning and sanitizer flags shared by every target of the project.
add_library(rpl_warnings INTERFACE)
target_compile_options(rpl_warnings INTERFACE
    -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
    -Wno-unused-parameter $<$<BOOL:${RPL_WERROR}>:-Werror>)
target_compile_definitions(rpl_warnings INTERFACE _POSIX_C_SOURCE=200809L _DEFAULT_SOURCE)

if(RPL_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                        -fno-sanitize-recover=undefined)
    add_link_options(-fsanitize=address,undefined)
endif()
