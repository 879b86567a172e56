/*
 * Running without address-space layout randomisation (see
 * rpl_replay_ensure_no_aslr in rpl/replay.h).  The personality flag only
 * takes effect at the next execve, so the process re-executes itself once;
 * an environment marker stops a second round when the flag did not stick.
 */
#define _GNU_SOURCE /* personality */

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include "rpl/error.h"
#include "rpl/replay.h"

#define PERSONALITY_QUERY 0xffffffffUL

static bool system_aslr_off(void)
{
    FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
    int c = f ? fgetc(f) : EOF;

    if (f)
        fclose(f);
    return c == '0';
}

bool rpl_replay_aslr_disabled(void)
{
    int cur = personality(PERSONALITY_QUERY);

    return (cur != -1 && (cur & ADDR_NO_RANDOMIZE)) || system_aslr_off();
}

int rpl_replay_ensure_no_aslr(char **argv)
{
    int cur = personality(PERSONALITY_QUERY);

    /*
     * Every thread allocates from the one main heap (brk, beside the program).
     * A thread's own arena is a 64 MiB-aligned mapping under the libraries,
     * and the CUDA driver places its address arena below whatever is mapped
     * there: each such mapping moves the arena away from where the
     * application had it (on the H200 it sat 90 MiB lower with one).
     */
    mallopt(M_ARENA_MAX, 1);
    if (cur == -1)
        return rpl_error_set(RPL_EENV, "cannot read the process personality: %s", strerror(errno));
    if ((cur & ADDR_NO_RANDOMIZE) || system_aslr_off()) {
        unsetenv(RPL_REPLAY_NO_ASLR_MARKER);
        return 0;
    }
    if (getenv(RPL_REPLAY_NO_ASLR_MARKER)) {
        unsetenv(RPL_REPLAY_NO_ASLR_MARKER);
        return rpl_error_set(RPL_EENV, "ASLR is still on after re-executing with "
                                       "personality(ADDR_NO_RANDOMIZE)");
    }
    if (personality((unsigned long)cur | ADDR_NO_RANDOMIZE) == -1)
        return rpl_error_set(RPL_EENV, "cannot turn ASLR off: personality(ADDR_NO_RANDOMIZE): %s",
                             strerror(errno));
    if (setenv(RPL_REPLAY_NO_ASLR_MARKER, "1", 1) != 0) {
        personality((unsigned long)cur);
        return rpl_error_oom();
    }
    fflush(NULL);
    execv("/proc/self/exe", argv);
    /* Still here: exec failed.  Leave the process as it was. */
    int err = errno;
    personality((unsigned long)cur);
    unsetenv(RPL_REPLAY_NO_ASLR_MARKER);
    return rpl_error_set(RPL_EENV, "cannot re-execute %s with ASLR off: %s",
                         argv && argv[0] ? argv[0] : "/proc/self/exe", strerror(err));
}
