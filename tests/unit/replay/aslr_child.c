/*
 * Helper of test_replay_aslr: calls rpl_replay_ensure_no_aslr the way
 * rocm-perf replay does and prints what it finds.  It first clears
 * ADDR_NO_RANDOMIZE for itself (unless it is the re-executed copy), so that
 * the re-execution path runs whatever the test runner's personality is.
 *
 * usage: aslr_child reexec|guard
 *   guard: the loop marker is set before the call, as if this were the copy.
 * Prints "rc=<status> second=<0|1> aslr_off=<0|1> marker=<set|unset> map=<address>
 * thread_heap=<main|own|sanitizer>": where a thread's first malloc came from.
 */
#define _GNU_SOURCE /* personality */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

#include "rpl/error.h"
#include "rpl/replay.h"

extern char end; /* the program's end: the brk heap follows it */

#if !defined(__SANITIZE_ADDRESS__)
static void *thread_malloc(void *arg)
{
    (void)arg;
    return malloc(64);
}
#endif

/* "main" when a new thread's malloc is served from the brk heap, "own" from an arena of its own. */
static const char *thread_heap(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return "sanitizer"; /* ASan's allocator has no glibc arenas */
#else
    pthread_t th;
    void *p = NULL;
    const char *where;

    if (pthread_create(&th, NULL, thread_malloc, NULL) != 0 || pthread_join(th, &p) != 0 || !p)
        return "unknown";
    where = (uintptr_t)p > (uintptr_t)&end && (uintptr_t)p < (uintptr_t)sbrk(0) ? "main" : "own";
    free(p);
    return where;
#endif
}

int main(int argc, char **argv)
{
    const bool second = getenv(RPL_REPLAY_NO_ASLR_MARKER) != NULL;
    int cur = personality(0xffffffffUL), rc;
    void *map;

    if (argc != 2)
        return 2;
    if (!second)
        personality((unsigned long)cur & ~(unsigned long)ADDR_NO_RANDOMIZE);
    if (strcmp(argv[1], "guard") == 0)
        setenv(RPL_REPLAY_NO_ASLR_MARKER, "1", 1);
    rc = rpl_replay_ensure_no_aslr(argv);
    /* Where the kernel puts a fresh mapping: the same in every run when ASLR is off. */
    map = mmap(NULL, 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("rc=%d second=%d aslr_off=%d marker=%s map=%p thread_heap=%s\n", rc, second,
           rpl_replay_aslr_disabled(), getenv(RPL_REPLAY_NO_ASLR_MARKER) ? "set" : "unset", map,
           thread_heap());
    if (rc)
        printf("msg=%s\n", rpl_error_last()->message);
    return 0;
}
