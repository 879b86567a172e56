// Parses only with the build's flags: an include directory and a macro.
#include "tile_config.h"
#ifndef SCALE_FACTOR
#error "SCALE_FACTOR comes from the build command"
#endif

__global__ void scaled(float *x)
{
    for (int i = 0; i < TILE_WIDTH; i++)
        x[threadIdx.x * TILE_WIDTH + i] *= SCALE_FACTOR;
}
