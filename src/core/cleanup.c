/* The cleanup registry and interrupt flag (see rpl/cleanup.h). */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/names.h"

typedef struct entry {
    struct entry *next; /* older entries */
    rpl_cleanup_id id;
    pid_t owner;
    char *path; /* a tree to remove, or NULL for fn(arg) */
    rpl_cleanup_fn fn;
    void *arg;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atexit_once = PTHREAD_ONCE_INIT;
static entry *newest;
static rpl_cleanup_id last_id;
static volatile sig_atomic_t caught_signal;
static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void run_all_at_exit(void)
{
    rpl_cleanup_run_all();
}

static void install_atexit(void)
{
    atexit(run_all_at_exit);
}

static int add(char *path, rpl_cleanup_fn fn, void *arg, rpl_cleanup_id *out)
{
    entry *e = calloc(1, sizeof(*e));

    if (!e) {
        free(path);
        return rpl_error_oom();
    }
    pthread_once(&atexit_once, install_atexit);
    e->owner = getpid();
    e->path = path;
    e->fn = fn;
    e->arg = arg;
    pthread_mutex_lock(&lock);
    e->id = ++last_id;
    e->next = newest;
    newest = e;
    pthread_mutex_unlock(&lock);
    if (out)
        *out = e->id;
    return 0;
}

int rpl_cleanup_register_path(const char *path, rpl_cleanup_id *out)
{
    char *copy = strdup(path);

    if (!copy)
        return rpl_error_oom();
    return add(copy, NULL, NULL, out);
}

int rpl_cleanup_register_fn(rpl_cleanup_fn fn, void *arg, rpl_cleanup_id *out)
{
    if (!fn)
        return rpl_error_set(RPL_EUSAGE, "cleanup callback is NULL");
    return add(NULL, fn, arg, out);
}

/* Unlink entry `id` (any: id 0) of this process from the list; NULL when none. */
static entry *take(rpl_cleanup_id id)
{
    pid_t self = getpid();
    entry **pp, *e = NULL;

    pthread_mutex_lock(&lock);
    for (pp = &newest; *pp; pp = &(*pp)->next) {
        if ((*pp)->owner == self && (id == 0 || (*pp)->id == id)) {
            e = *pp;
            *pp = e->next;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return e;
}

static int run_entry(entry *e)
{
    int rc = 0;

    if (e->path)
        rc = rpl_remove_tree(e->path);
    else
        e->fn(e->arg);
    free(e->path);
    free(e);
    return rc;
}

void rpl_cleanup_unregister(rpl_cleanup_id id)
{
    entry *e;

    if (id == 0 || (e = take(id)) == NULL)
        return;
    free(e->path);
    free(e);
}

int rpl_cleanup_run(rpl_cleanup_id id)
{
    entry *e;

    if (id == 0 || (e = take(id)) == NULL)
        return 0;
    return run_entry(e);
}

void rpl_cleanup_run_all(void)
{
    entry *e;

    while ((e = take(0)) != NULL)
        run_entry(e);
}

/* Async-signal-safe: one store.  SA_RESETHAND makes a second signal fatal at once. */
static void on_signal(int sig)
{
    if (!caught_signal)
        caught_signal = sig;
}

int rpl_cleanup_install_signals(void)
{
    struct sigaction sa, old;
    size_t i;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    pthread_once(&atexit_once, install_atexit);
    for (i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++) {
        int sig = handled_signals[i];
        /* A signal the parent set to be ignored (nohup, `cmd &` in a script) stays ignored. */
        if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        if (sigaction(sig, &sa, NULL) != 0)
            return rpl_error_set(RPL_ERROR, "cannot install a handler for signal %d", sig);
    }
    return 0;
}

int rpl_interrupted(void)
{
    return caught_signal;
}

static const char *signal_name(int sig)
{
    static const char *const names[] = {
        [SIGINT] = "SIGINT", [SIGTERM] = "SIGTERM", [SIGHUP] = "SIGHUP"};

    return RPL_NAME_OF(names, sig, "a signal");
}

int rpl_interrupt_check(void)
{
    int sig = caught_signal;

    return sig ? rpl_error_set(RPL_ERROR, "interrupted by %s", signal_name(sig)) : 0;
}

void rpl_cleanup_exit_if_interrupted(void)
{
    int sig = caught_signal;
    sigset_t set;

    if (!sig)
        return;
    rpl_cleanup_run_all();
    signal(sig, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig); /* the signal was ignored by the environment */
}
