// A CUDA program that starts a CUDA child process (itself, with "child"):
// under the recorder each process must write its own database.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.cuh"

extern char **environ;

__global__ void mark(int *x, int v)
{
    *x = v;
}

static int run_kernel(int v)
{
    int *x, hx = 0;

    CHECK(cudaMalloc(&x, sizeof(int)));
    mark<<<1, 1>>>(x, v);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&hx, x, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x));
    return hx == v ? 0 : 1;
}

int main(int argc, char **argv)
{
    pid_t pid;
    int status = 0;

    if (argc > 1)
        return run_kernel(2);
    if (run_kernel(1) != 0)
        fail("parent kernel");
    char child[] = "child";
    char *args[] = {argv[0], child, nullptr};
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, args, environ) != 0)
        fail("posix_spawn");
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail("child process");
    std::printf("spawn_child: ok (parent %d, child %d)\n", (int)getpid(), (int)pid);
    return 0;
}
