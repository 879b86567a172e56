// The consumer kernel with 32 KiB of LDS (see kernel.hip).
#define CONSUMER_HEAVY 1
#include "kernel.hip"
