// Parsed against the real CUDA toolkit headers: cooperative groups with
// cg::reduce, CUB and Thrust, which CUDA 13 keeps in include/cccl.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>

namespace cg = cooperative_groups;

// loop 0 reduces over a warp each pass: a library call, nothing that stops unrolling.
__global__ void tile_sums(const float *in, float *out, int passes)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float total = 0.0f;
    for (int p = 0; p < passes; ++p)
        total += cg::reduce(tile, in[p * blockDim.x + block.thread_rank()], cg::plus<float>());
    if (tile.thread_rank() == 0)
        out[blockIdx.x * (blockDim.x / 32) + tile.meta_group_rank()] = total;
}

// loop 0 synchronises the block each pass: a barrier.
__global__ void staged_scale(float *data, float factor, int rounds)
{
    cg::thread_block block = cg::this_thread_block();
    for (int r = 0; r < rounds; ++r) {
        data[block.thread_rank()] *= factor;
        block.sync();
    }
}

// CUB's block reduction inside a loop: a call into a library header.
__global__ void block_totals(const int *in, int *out, int chunks)
{
    using Reduce = cub::BlockReduce<int, 128>;
    __shared__ typename Reduce::TempStorage scratch;
    int sum = 0;
    for (int c = 0; c < chunks; ++c)
        sum += in[c * 128 + threadIdx.x];
    int total = Reduce(scratch).Sum(sum);
    if (threadIdx.x == 0)
        out[blockIdx.x] = total;
}

float host_total(const thrust::device_vector<float> &v)
{
    return thrust::reduce(v.begin(), v.end(), 0.0f);
}
