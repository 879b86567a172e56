// Two streams joined by an event: s1 fills `a` and records `ready`; s2 waits
// for `ready` (cudaStreamWaitEvent) before its kernel reads `a`.  Without
// the wait the result would be wrong; the recorder must show the wait as a
// real dependency.  Five rounds, so that durations have a median.
#include <vector>

#include "common.cuh"

__global__ void produce(float *a, int n, int round)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = (float)(i % 1000) * 0.5f + round;
        // Some arithmetic so that the kernel lasts long enough to measure.
        for (int k = 0; k < 256; k++)
            v = v * 0.999f + 0.001f * (float)k;
        a[i] = v;
    }
}

__global__ void consume(const float *a, float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = 2.0f * a[i] + 1.0f;
}

int main()
{
    const int n = 1 << 24, rounds = 5, block = 256, grid = (n + block - 1) / block;
    float *a, *b;
    cudaStream_t s1, s2;
    cudaEvent_t ready;
    std::vector<float> ha(n), hb(n);

    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    for (int r = 0; r < rounds; r++) {
        CHECK(cudaMemsetAsync(b, 0xff, n * sizeof(float), s2)); // poison: NaN
        produce<<<grid, block, 0, s1>>>(a, n, r);
        CHECK_LAUNCH();
        CHECK(cudaEventRecord(ready, s1));
        CHECK(cudaStreamWaitEvent(s2, ready, 0));
        consume<<<grid, block, 0, s2>>>(a, b, n);
        CHECK_LAUNCH();
        CHECK(cudaStreamSynchronize(s2));
        CHECK(cudaMemcpy(ha.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hb.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i += 4099)
            if (!(hb[i] == 2.0f * ha[i] + 1.0f))
                fail("consume read a before produce finished");
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventDestroy(ready));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("two_streams: ok (%d rounds, n=%d)\n", rounds, n);
    return 0;
}
