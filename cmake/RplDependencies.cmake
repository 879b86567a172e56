# Third-party libraries, all from Debian packages (scripts/install-deps.sh).
find_package(PkgConfig REQUIRED)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3>=3.31)
pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson)
pkg_check_modules(GSL REQUIRED IMPORTED_TARGET gsl)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(MSGPACK REQUIRED IMPORTED_TARGET msgpack)
pkg_check_modules(LIBXML2 REQUIRED IMPORTED_TARGET libxml-2.0) # JUnit XML
pkg_check_modules(ZSTD IMPORTED_TARGET libzstd) # optional: compressed offload bundles and cubins
pkg_check_modules(LIBCRYPTO REQUIRED IMPORTED_TARGET libcrypto) # SHA-256 of snapshot files
pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET libgit2>=1.1) # optimization branches
pkg_check_modules(LIBCURL REQUIRED IMPORTED_TARGET libcurl>=7.66) # LLM HTTP client (CURLINFO_RETRY_AFTER)

# libclang's C API header.  The library itself is loaded at run time (dlopen), so that
# rocm-perf runs where no libclang is installed and picks up whichever version is there.
file(GLOB _rpl_llvm_includes LIST_DIRECTORIES true "/usr/lib/llvm-*/include")
list(SORT _rpl_llvm_includes COMPARE NATURAL ORDER DESCENDING)
find_path(RPL_LIBCLANG_INCLUDE_DIR clang-c/Index.h PATHS ${_rpl_llvm_includes} REQUIRED)
message(STATUS "rocm-perf-lab: libclang C API header in ${RPL_LIBCLANG_INCLUDE_DIR}")
find_package(Threads REQUIRED)

# CUDA is optional: the CUPTI recorder is built only where a toolkit exists.
set(RPL_CUDA_ROOT "/usr/local/cuda" CACHE PATH "CUDA toolkit root (optional)")
if(EXISTS "${RPL_CUDA_ROOT}/include/cuda.h")
    set(RPL_HAVE_CUDA ON)
else()
    set(RPL_HAVE_CUDA OFF)
endif()
message(STATUS "rocm-perf-lab: CUDA toolkit ${RPL_HAVE_CUDA} (${RPL_CUDA_ROOT})")

# HSA is optional too: librpl_hsa.so (capture) and the HSA replay backend need the
# runtime's headers (Debian libhsa-runtime-dev or a ROCm install); the runtime itself is
# found at run time (HSA_TOOLS_LIB loads the capture library, the replay dlopens it).
find_path(RPL_HSA_INCLUDE_DIR hsa/hsa.h PATHS /opt/rocm/include)
if(RPL_HSA_INCLUDE_DIR AND EXISTS "${RPL_HSA_INCLUDE_DIR}/hsa/hsa_ven_amd_loader.h"
   AND EXISTS "${RPL_HSA_INCLUDE_DIR}/hsa/hsa_ext_amd.h")
    set(RPL_HAVE_HSA ON)
else()
    set(RPL_HAVE_HSA OFF)
endif()
message(STATUS "rocm-perf-lab: HSA headers ${RPL_HAVE_HSA} (${RPL_HSA_INCLUDE_DIR})")
