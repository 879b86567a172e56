/* Polling the GPU state on a thread while a measurement runs. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "rpl/error.h"
#include "rpl/gpu_state.h"

struct rpl_gpu_sampler {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
    unsigned index, period_ms;
    rpl_gpu_state state;
};

static void sample(rpl_gpu_sampler *s)
{
    rpl_gpu_state one;

    if (!rpl_gpu_state_poll(&one, s->index))
        return;
    pthread_mutex_lock(&s->lock);
    rpl_gpu_state_merge(&s->state, &one);
    pthread_mutex_unlock(&s->lock);
}

static void *run(void *arg)
{
    rpl_gpu_sampler *s = arg;
    struct timespec t;

    pthread_mutex_lock(&s->lock);
    while (!s->stop) {
        pthread_mutex_unlock(&s->lock);
        sample(s);
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += (long)s->period_ms * 1000000L;
        t.tv_sec += t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        pthread_mutex_lock(&s->lock);
        if (!s->stop)
            pthread_cond_timedwait(&s->wake, &s->lock, &t);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int rpl_gpu_sampler_start(rpl_gpu_sampler **out, unsigned index, unsigned period_ms)
{
    rpl_gpu_sampler *s = calloc(1, sizeof(*s));

    *out = NULL;
    if (!s)
        return rpl_error_oom();
    s->index = index;
    s->period_ms = period_ms ? period_ms : 1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    if (pthread_create(&s->thread, NULL, run, s) != 0) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
        free(s);
        return rpl_error_set(RPL_ERROR, "cannot start the GPU state sampler thread");
    }
    *out = s;
    return 0;
}

void rpl_gpu_sampler_stop(rpl_gpu_sampler *s, rpl_gpu_state *out)
{
    if (!s) {
        if (out)
            *out = (rpl_gpu_state){0};
        return;
    }
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    sample(s); /* one reading at the end: a program shorter than a period still gets one */
    if (out)
        *out = s->state;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    free(s);
}
