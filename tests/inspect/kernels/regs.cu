// Register pressure: N accumulators kept live across a loop.
#include "accumulate.h"

__global__ void __launch_bounds__(256) regs_16(float *o, const float *i, int n) { accumulate<16>(o, i, n); }
__global__ void __launch_bounds__(256) regs_48(float *o, const float *i, int n) { accumulate<48>(o, i, n); }
__global__ void __launch_bounds__(256) regs_96(float *o, const float *i, int n) { accumulate<96>(o, i, n); }
__global__ void __launch_bounds__(256) regs_160(float *o, const float *i, int n) { accumulate<160>(o, i, n); }
// 1024 threads and two blocks per SM leave 32 registers: it spills to the stack.
__global__ void __launch_bounds__(1024, 2) regs_160_spill(float *o, const float *i, int n) { accumulate<160>(o, i, n); }
