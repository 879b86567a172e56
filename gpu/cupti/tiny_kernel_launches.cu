// Launch overhead benchmark: N launches (default 100000) of a tiny kernel on
// one stream, then one synchronisation.  Prints the time of the launch loop
// (host clock, after a warm-up launch, up to the end of the synchronisation)
// and, within it, the time to enqueue the launches (before the
// synchronisation), so that runs with and without the recorder can be
// compared and host-side cost told from GPU-side; the process wall time is
// measured outside.
#include <chrono>
#include <cstdlib>

#include "common.cuh"

__global__ void tiny(int *x)
{
    if (threadIdx.x == 0)
        atomicAdd(x, 1);
}

int main(int argc, char **argv)
{
    const long n = argc > 1 ? std::atol(argv[1]) : 100000;
    int *x, hx = 0;

    if (n <= 0 || n > 100000000)
        fail("launch count must be in 1..1e8");
    CHECK(cudaMalloc(&x, sizeof(int)));
    CHECK(cudaMemset(x, 0, sizeof(int)));
    tiny<<<1, 32>>>(x); // warm-up: module load, first-launch costs
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; i++)
        tiny<<<1, 32>>>(x);
    CHECK_LAUNCH();
    auto tq = std::chrono::steady_clock::now();
    CHECK(cudaDeviceSynchronize());
    auto t1 = std::chrono::steady_clock::now();
    CHECK(cudaMemcpy(&hx, x, sizeof(int), cudaMemcpyDeviceToHost));
    if (hx != n + 1)
        fail("not every launch ran");
    CHECK(cudaFree(x));
    std::printf("tiny_kernel_launches: n=%ld loop_ms=%.3f enqueue_ms=%.3f\n", n,
                std::chrono::duration<double, std::milli>(t1 - t0).count(),
                std::chrono::duration<double, std::milli>(tq - t0).count());
    return 0;
}
