// pointer_chase: a kernel whose buffers hold device pointers into other
// buffers, so only a replay at the captured addresses computes the captured
// result.  The nodes live in three allocations of three kinds (cudaMalloc,
// the stream-ordered pool of cudaMallocAsync, and a VMM range mapped from
// two physical allocations, as PyTorch's expandable segments do); each
// node's `next` points into any of them.  The kernel also reads a
// __device__ and a __constant__ variable (module globals).  A pinned host
// staging buffer exists but is never passed to the kernel.
//
//   pointer_chase [--reps N]   (exit 0 when every launch's result is right)
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                    \
                         cudaGetErrorString(e_));                                                  \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)
#define CHECK_CU(call)                                                                             \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            std::fprintf(stderr, "%s:%d: %s: CUresult %d\n", __FILE__, __LINE__, #call, (int)r_); \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

struct Node {
    const Node *next;
    float value;
    int pad;
};

__device__ int chase_steps;
__constant__ float chase_scale;

__global__ void chase(const Node *const *starts, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const Node *p = starts[i];
    float s = 0.0f;
    for (int k = 0; k < chase_steps; k++) {
        s += p->value;
        p = p->next;
    }
    out[i] = s * chase_scale;
}

static uint64_t rng(uint64_t &s)
{
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    int reps = 5;
    if (argc == 3 && std::strcmp(argv[1], "--reps") == 0)
        reps = std::atoi(argv[2]);
    const int per = 1 << 20, n = 1 << 18, steps = 48, block = 256;
    const float scale = 0.5f;
    const size_t bytes = (size_t)per * sizeof(Node);

    // Three node buffers: cudaMalloc, cudaMallocAsync, and a VMM range of two mappings.
    Node *bufs[3];
    CHECK(cudaMalloc(&bufs[0], bytes));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocAsync(&bufs[1], bytes, s));
    CHECK(cudaStreamSynchronize(s));

    CUdevice dev;
    CHECK_CU(cuCtxGetDevice(&dev));
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CHECK_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t half = (bytes / 2 + gran - 1) / gran * gran;
    CUdeviceptr va = 0;
    CHECK_CU(cuMemAddressReserve(&va, 2 * half, 0, 0, 0));
    for (int k = 0; k < 2; k++) {
        CUmemGenericAllocationHandle h;
        CHECK_CU(cuMemCreate(&h, half, &prop, 0));
        CHECK_CU(cuMemMap(va + k * half, half, 0, h, 0));
        CHECK_CU(cuMemRelease(h));
    }
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_CU(cuMemSetAccess(va, 2 * half, &acc, 1));
    bufs[2] = (Node *)va;

    // Links across the three buffers, built on the host with the device addresses.
    std::vector<Node> host[3];
    uint64_t seed = 42;
    for (int b = 0; b < 3; b++) {
        host[b].resize(per);
        for (int j = 0; j < per; j++) {
            uint64_t r = rng(seed);
            host[b][j].next = bufs[r % 3] + (r >> 8) % per;
            host[b][j].value = (float)((r >> 40) % 1000) / 64.0f;
            host[b][j].pad = 0;
        }
    }
    Node *staging; // pinned host memory: tracked by the capture, never a kernel argument
    CHECK(cudaMallocHost(&staging, bytes));
    for (int b = 0; b < 3; b++) {
        std::memcpy(staging, host[b].data(), bytes);
        CHECK(cudaMemcpy(bufs[b], staging, bytes, cudaMemcpyHostToDevice));
    }
    std::vector<const Node *> starts(n);
    for (int i = 0; i < n; i++) {
        uint64_t r = rng(seed);
        starts[i] = bufs[r % 3] + (r >> 8) % per;
    }
    const Node **dstarts;
    float *dout;
    CHECK(cudaMalloc(&dstarts, n * sizeof(*dstarts)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMemcpy(dstarts, starts.data(), n * sizeof(*dstarts), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(chase_steps, &steps, sizeof(steps)));
    CHECK(cudaMemcpyToSymbol(chase_scale, &scale, sizeof(scale)));

    std::vector<float> want(n), got(n);
    for (int i = 0; i < n; i++) {
        const Node *p = starts[i];
        float acc_v = 0.0f;
        for (int k = 0; k < steps; k++) {
            int b = p >= bufs[0] && p < bufs[0] + per ? 0 : p >= bufs[1] && p < bufs[1] + per ? 1 : 2;
            const Node &h = host[b][p - bufs[b]];
            acc_v += h.value;
            p = h.next;
        }
        want[i] = acc_v * scale;
    }
    size_t bad = 0;
    for (int r = 0; r < reps; r++) {
        CHECK(cudaMemsetAsync(dout, 0, n * sizeof(float), s));
        chase<<<(n + block - 1) / block, block, 0, s>>>(dstarts, dout, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; i++)
            bad += got[i] != want[i];
    }
    std::printf("pointer_chase: %d launches, %zu wrong values; buffers at %p %p %p\n", reps, bad,
                (void *)bufs[0], (void *)bufs[1], (void *)bufs[2]);
    CHECK(cudaFreeHost(staging));
    CHECK(cudaFreeAsync(bufs[1], s));
    CHECK(cudaStreamSynchronize(s));
    CHECK_CU(cuMemUnmap(va, 2 * half));
    CHECK_CU(cuMemAddressFree(va, 2 * half));
    CHECK(cudaFree(bufs[0]));
    CHECK(cudaFree(dstarts));
    CHECK(cudaFree(dout));
    return bad ? 1 : 0;
}
