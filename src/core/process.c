/* Process-wide settings a program using the library makes once, at its start. */
#include <signal.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "rpl/process.h"

static void on_file_size_limit(int sig)
{
    (void)sig;
}

/*
 * Past a file-size limit (ulimit -f) SIGXFSZ would kill us mid-write; caught,
 * write() fails with EFBIG instead and the error becomes one line and exit 3
 * with the temporary removed.  A handler rather than SIG_IGN, so programs we
 * start get the default action back at exec.
 */
static void catch_file_size_limit(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_file_size_limit;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGXFSZ, &sa, NULL);
}

/*
 * Large arrays (a trace's records, the DAG's indexes: tens of MB each) come
 * and go during one analysis.  glibc raises its mmap threshold each time
 * such a block is freed, so that later ones of that size land in the heap,
 * whose freed pages stay resident; a fixed threshold keeps every large block
 * mapped on its own and handed back when freed (on a 1M-launch trace about
 * 10-20 MB less peak RSS; docs/validation/bench-analyze.md).
 */
static void keep_large_blocks_mapped(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

void rpl_process_init(void)
{
    keep_large_blocks_mapped();
    catch_file_size_limit();
}
