# The RocmPerfLab package: install rules, exported targets (install tree and
# build tree), the pkg-config file, ALIAS targets for add_subdirectory and
# FetchContent users, and a find_package redirect when this project is not
# the top level.  Included by the top-level CMakeLists.txt after src/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(RocmPerfLab::rpl ALIAS rpl)
add_executable(RocmPerfLab::rocm-perf ALIAS rocm-perf)

set(RPL_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/RocmPerfLab" CACHE STRING
    "Where RocmPerfLabConfig.cmake is installed, relative to the prefix")
set(RPL_TEMPLATES_DIR "${CMAKE_INSTALL_DATADIR}/rocm-perf-lab/templates")

# The pkg-config modules rpl links (PkgConfig::<PREFIX> targets), as
# PREFIX=module pairs for the config file and a list for the .pc file.
get_target_property(_rpl_links rpl LINK_LIBRARIES)
set(RPL_PKG_DEPS "")
set(RPL_PKG_MODULES "")
set(_rpl_pc_requires "")
# Modules whose static dependencies Debian's -dev package does not install
# (libcurl: nghttp2, rtmp, psl, gssapi, ldap ...; libgit2: mbedtls, ssh2, pcre2,
# http-parser).  librpl uses their shared
# library, so the .pc file names that library (Libs.private) instead of
# requiring the module, which `pkg-config --static` would expand in full.
set(_rpl_pc_shared_only LIBCURL LIBGIT2)
set(RPL_PC_LIBS_PRIVATE "")
set(RPL_CONFIG_THREADS OFF)
foreach(_lib IN LISTS _rpl_links)
    if(_lib MATCHES "Threads::Threads")
        set(RPL_CONFIG_THREADS ON)
        string(APPEND RPL_PC_LIBS_PRIVATE " -pthread")
    elseif(_lib MATCHES "PkgConfig::([A-Za-z0-9_]+)")
        set(_prefix "${CMAKE_MATCH_1}")
        list(APPEND RPL_PKG_DEPS "${_prefix}=${${_prefix}_MODULE_NAME}")
        list(APPEND RPL_PKG_MODULES "${${_prefix}_MODULE_NAME}")
        if(_prefix IN_LIST _rpl_pc_shared_only)
            foreach(_l IN LISTS ${_prefix}_LIBRARIES)
                string(APPEND RPL_PC_LIBS_PRIVATE " -l${_l}")
            endforeach()
        else()
            list(APPEND _rpl_pc_requires "${${_prefix}_MODULE_NAME}")
        endif()
    elseif(_lib MATCHES "^[A-Za-z0-9_]+$" AND NOT TARGET "${_lib}")
        string(APPEND RPL_PC_LIBS_PRIVATE " -l${_lib}")
    elseif(_lib MATCHES "::" AND NOT _lib MATCHES "^::@")
        # (::@ entries mark link items added from other directories.)
        message(WARNING "rpl links ${_lib}, which RocmPerfLabConfig.cmake does not find: "
                        "teach cmake/RocmPerfLabInstall.cmake and the config about it")
    endif()
endforeach()
list(REMOVE_DUPLICATES RPL_PKG_DEPS)
list(REMOVE_DUPLICATES RPL_PKG_MODULES)
string(REPLACE ";" ", " RPL_PKG_MODULES_TEXT "${RPL_PKG_MODULES}")
if(RPL_SANITIZE)
    string(REPLACE ";" " " _sanitize "${RPL_SANITIZE_FLAGS}")
    string(APPEND RPL_PC_LIBS_PRIVATE " ${_sanitize}")
endif()
list(REMOVE_DUPLICATES _rpl_pc_requires)
string(REPLACE ";" " " RPL_PC_REQUIRES_PRIVATE "${_rpl_pc_requires}")

# Targets.  The library and the program are separate export sets so that a
# machine without the library's development files can still use the program.
install(TARGETS rpl EXPORT RocmPerfLabLibraryTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS rocm-perf EXPORT RocmPerfLabToolTargets
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
foreach(_set Library Tool)
    install(EXPORT RocmPerfLab${_set}Targets NAMESPACE RocmPerfLab::
            DESTINATION "${RPL_INSTALL_CMAKEDIR}")
endforeach()
file(GLOB _rpl_headers "${PROJECT_SOURCE_DIR}/src/include/rpl/*.h")
install(FILES ${_rpl_headers} "${PROJECT_BINARY_DIR}/src/include/rpl/version.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/rpl")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/templates/"
        DESTINATION "${RPL_TEMPLATES_DIR}" PATTERN "README.md" EXCLUDE)

# Config and version files, installed.
set(_rpl_version_file "${PROJECT_BINARY_DIR}/RocmPerfLabConfigVersion.cmake")
write_basic_package_version_file("${_rpl_version_file}" COMPATIBILITY SameMajorVersion)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/RocmPerfLabConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/install-config/RocmPerfLabConfig.cmake"
    INSTALL_DESTINATION "${RPL_INSTALL_CMAKEDIR}" PATH_VARS RPL_TEMPLATES_DIR)
install(FILES "${PROJECT_BINARY_DIR}/install-config/RocmPerfLabConfig.cmake" "${_rpl_version_file}"
              "${PROJECT_SOURCE_DIR}/cmake/RocmPerfLab.cmake"
        DESTINATION "${RPL_INSTALL_CMAKEDIR}")
install(PROGRAMS "${PROJECT_SOURCE_DIR}/cmake/RocmPerfLabGate.sh" DESTINATION "${RPL_INSTALL_CMAKEDIR}")

# pkg-config, relocatable through ${pcfiledir}.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(RPL_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
    file(RELATIVE_PATH _rel "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
    string(REGEX REPLACE "/$" "" _rel "${_rel}")
    set(RPL_PC_PREFIX "\${pcfiledir}/${_rel}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/rocm-perf-lab.pc.in"
               "${PROJECT_BINARY_DIR}/rocm-perf-lab.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/rocm-perf-lab.pc"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# The build tree as a package: CMAKE_PREFIX_PATH=<build dir> or
# RocmPerfLab_DIR=<build dir>/lib/cmake/RocmPerfLab (not relocatable).
set(_rpl_build_pkg "${PROJECT_BINARY_DIR}/lib/cmake/RocmPerfLab")
foreach(_set Library Tool)
    export(EXPORT RocmPerfLab${_set}Targets NAMESPACE RocmPerfLab::
           FILE "${_rpl_build_pkg}/RocmPerfLab${_set}Targets.cmake")
endforeach()
set(RPL_TEMPLATES_DIR "${PROJECT_SOURCE_DIR}/templates")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/RocmPerfLabConfig.cmake.in"
    "${_rpl_build_pkg}/RocmPerfLabConfig.cmake"
    INSTALL_DESTINATION "${_rpl_build_pkg}" INSTALL_PREFIX "${PROJECT_BINARY_DIR}"
    PATH_VARS RPL_TEMPLATES_DIR)
configure_file("${_rpl_version_file}" "${_rpl_build_pkg}/RocmPerfLabConfigVersion.cmake" COPYONLY)
configure_file("${PROJECT_SOURCE_DIR}/cmake/RocmPerfLab.cmake" "${_rpl_build_pkg}/RocmPerfLab.cmake"
               COPYONLY)
file(COPY "${PROJECT_SOURCE_DIR}/cmake/RocmPerfLabGate.sh" DESTINATION "${_rpl_build_pkg}")

# Embedded (add_subdirectory, FetchContent): find_package(RocmPerfLab) in the
# parent finds this build, whose targets and function already exist.
if(NOT PROJECT_IS_TOP_LEVEL)
    file(WRITE "${CMAKE_FIND_PACKAGE_REDIRECTS_DIR}/rocmperflab-config.cmake"
         "# Written by rocm-perf-lab's build: the project is part of this build.\n"
         "set(RocmPerfLab_tool_FOUND TRUE)\nset(RocmPerfLab_library_FOUND TRUE)\n"
         "set(ROCM_PERF_TEMPLATES_DIR \"${PROJECT_SOURCE_DIR}/templates\")\n"
         "include(\"${PROJECT_SOURCE_DIR}/cmake/RocmPerfLab.cmake\")\n")
    configure_file("${_rpl_version_file}"
                   "${CMAKE_FIND_PACKAGE_REDIRECTS_DIR}/rocmperflab-config-version.cmake" COPYONLY)
endif()

# `rocm-perf new-test` finds its templates beside the program once installed,
# else in the source tree it was built from (core/templates.c, and cli/).
file(RELATIVE_PATH _rpl_bin_to_templates "/p/${CMAKE_INSTALL_BINDIR}"
     "/p/${CMAKE_INSTALL_DATADIR}/rocm-perf-lab/templates")
foreach(_t rpl rocm-perf)
    target_compile_definitions(${_t} PRIVATE
        RPL_TEMPLATES_FROM_BINDIR="${_rpl_bin_to_templates}"
        RPL_SOURCE_TEMPLATES_DIR="${PROJECT_SOURCE_DIR}/templates")
endforeach()
