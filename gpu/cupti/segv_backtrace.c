/*
 * Diagnostic preload for GPU runs: on SIGSEGV, SIGBUS or SIGABRT print the
 * native backtrace and the executable mappings to stderr, then die of the
 * same signal.  The machine has no gdb; addresses inside librpl_cupti.so
 * are resolved afterwards with addr2line against the same build.
 *   LD_PRELOAD=segv_backtrace.so PROGRAM
 * Build: cc -O1 -g -shared -fPIC -o segv_backtrace.so segv_backtrace.c
 */
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void on_fatal(int sig)
{
    void *frames[64];
    char buf[4096];
    int n = backtrace(frames, 64), fd;
    ssize_t got;
    static const char head[] = "segv_backtrace: fatal signal, backtrace:\n";
    static const char maps[] = "segv_backtrace: executable mappings:\n";

    (void)!write(2, head, sizeof(head) - 1);
    backtrace_symbols_fd(frames, n, 2);
    (void)!write(2, maps, sizeof(maps) - 1);
    fd = open("/proc/self/maps", O_RDONLY);
    while (fd >= 0 && (got = read(fd, buf, sizeof(buf))) > 0)
        (void)!write(2, buf, (size_t)got);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
}
