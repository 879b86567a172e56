# Third-party libraries, all from Debian packages (scripts/install-deps.sh).
find_package(PkgConfig REQUIRED)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3>=3.31)
pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson)
pkg_check_modules(GSL REQUIRED IMPORTED_TARGET gsl)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(MSGPACK REQUIRED IMPORTED_TARGET msgpack)
pkg_check_modules(LIBXML2 REQUIRED IMPORTED_TARGET libxml-2.0) # JUnit XML
pkg_check_modules(ZSTD IMPORTED_TARGET libzstd) # optional: compressed offload bundles and cubins
find_package(Threads REQUIRED)

# CUDA is optional: the CUPTI recorder is built only where a toolkit exists.
set(RPL_CUDA_ROOT "/usr/local/cuda" CACHE PATH "CUDA toolkit root (optional)")
if(EXISTS "${RPL_CUDA_ROOT}/include/cuda.h")
    set(RPL_HAVE_CUDA ON)
else()
    set(RPL_HAVE_CUDA OFF)
endif()
message(STATUS "rocm-perf-lab: CUDA toolkit ${RPL_HAVE_CUDA} (${RPL_CUDA_ROOT})")
