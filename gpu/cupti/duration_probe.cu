// Kernel durations under different conditions, for the duration check
// (gpu/cupti/duration_check.sh): the memory-bound kernels of saxpy_copy and
// copies (saxpy and copy over 2^25 floats, scale over 2^24), run
//   phase "b2b": 5 rounds of saxpy, copy, scale back to back on one stream;
//   phase "iso": the same 5 rounds, with a synchronisation and 2 ms of idle
//                GPU before every kernel (as a profiler that serialises
//                kernels runs them).
// Each phase starts with one warm-up round.  With the argument "events" every
// kernel is bracketed by CUDA events and the program prints one line per
// kernel: "phase round kernel event_ns"; without it no event is recorded, so
// a tracer sees the kernels alone.  Launch order (the same in every run):
// phase b2b rounds 0..5, then phase iso rounds 0..5, each round saxpy, copy,
// scale; round 0 is the warm-up.
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "common.cuh"
#include "mem_kernels.cuh"

int main(int argc, char **argv)
{
    const int n = 1 << 25, ns = 1 << 24, rounds = 5;
    const bool events = argc > 1 && std::strcmp(argv[1], "events") == 0;
    const char *phases[] = {"b2b", "iso"};
    const char *names[] = {"saxpy", "copy", "scale"};
    float *x, *y, *z, *w;
    std::vector<cudaEvent_t> ev(2 * 3 * (rounds + 1) * 2);

    CHECK(cudaMalloc(&x, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&y, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&z, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&w, (size_t)ns * sizeof(float)));
    CHECK(cudaMemset(x, 0, (size_t)n * sizeof(float)));
    CHECK(cudaMemset(y, 0, (size_t)n * sizeof(float)));
    CHECK(cudaMemset(w, 0, (size_t)ns * sizeof(float)));
    for (auto &e : ev)
        CHECK(cudaEventCreate(&e));
    CHECK(cudaDeviceSynchronize());
    int k = 0;
    for (int p = 0; p < 2; p++) {
        for (int r = 0; r <= rounds; r++) {
            for (int which = 0; which < 3; which++, k++) {
                if (p == 1) {
                    CHECK(cudaDeviceSynchronize());
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                }
                if (events)
                    CHECK(cudaEventRecord(ev[2 * k]));
                if (which == 0)
                    saxpy<<<(n + 255) / 256, 256>>>(n, 1.5f, x, y);
                else if (which == 1)
                    copy<<<(n + 255) / 256, 256>>>(n, y, z);
                else
                    scale<<<(ns + 255) / 256, 256>>>(w, ns, 1.0f);
                CHECK_LAUNCH();
                if (events)
                    CHECK(cudaEventRecord(ev[2 * k + 1]));
            }
        }
    }
    CHECK(cudaDeviceSynchronize());
    if (events) {
        k = 0;
        for (int p = 0; p < 2; p++)
            for (int r = 0; r <= rounds; r++)
                for (int which = 0; which < 3; which++, k++) {
                    float ms = 0;
                    CHECK(cudaEventElapsedTime(&ms, ev[2 * k], ev[2 * k + 1]));
                    std::printf("%s %d %s %.0f\n", phases[p], r, names[which], ms * 1e6);
                }
    }
    for (auto &e : ev)
        CHECK(cudaEventDestroy(e));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(z));
    CHECK(cudaFree(w));
    std::fprintf(stderr, "duration_probe: ok (%d kernels)\n", k);
    return 0;
}
