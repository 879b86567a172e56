// Register pressure: N independent accumulators kept live across a loop.
#include <hip/hip_runtime.h>

#include "accumulate.h"

__global__ void __launch_bounds__(256) regs_16(float *o, const float *i, int n) { accumulate<16>(o, i, n); }
__global__ void __launch_bounds__(256) regs_48(float *o, const float *i, int n) { accumulate<48>(o, i, n); }
__global__ void __launch_bounds__(256) regs_96(float *o, const float *i, int n) { accumulate<96>(o, i, n); }
__global__ void __launch_bounds__(256) regs_160(float *o, const float *i, int n) { accumulate<160>(o, i, n); }
// The same pressure with 1024-thread workgroups: the VGPR budget shrinks and it spills.
__global__ void __launch_bounds__(1024) regs_160_spill(float *o, const float *i, int n) { accumulate<160>(o, i, n); }
