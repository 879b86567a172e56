/*
 * The environment that is the contract between `rocm-perf capture` and the capture libraries
 * (librpl_cupti.so through CUDA_INJECTION64_PATH, librpl_hsa.so through
 * HSA_TOOLS_LIB).  A library that sees RPL_CAPTURE_ENV_DIR captures the
 * RPL_CAPTURE_ENV_DISPATCH-th dispatch (0-based, default 0) whose kernel
 * name matches RPL_CAPTURE_ENV_KERNEL (POSIX extended regex, unanchored,
 * tried on the demangled name and then on the mangled one; absent or empty:
 * every kernel), writes it with rpl_snapshot_writer_* under exactly that
 * directory (which does not exist yet), and lets the application go on.
 */
#ifndef RPL_CAPTURE_ENV_H
#define RPL_CAPTURE_ENV_H

#define RPL_CAPTURE_ENV_DIR      "ROCM_PERF_CAPTURE_DIR"
#define RPL_CAPTURE_ENV_KERNEL   "ROCM_PERF_CAPTURE_KERNEL"
#define RPL_CAPTURE_ENV_DISPATCH "ROCM_PERF_CAPTURE_DISPATCH"

/* Override where the injected libraries are taken from (default: beside rocm-perf). */
#define RPL_CAPTURE_ENV_CUPTI_LIB "ROCM_PERF_CUPTI_LIB"
#define RPL_CAPTURE_ENV_HSA_LIB   "ROCM_PERF_HSA_LIB"

#endif
