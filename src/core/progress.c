/* A progress line on stderr, drawn only on a terminal (see rpl/log.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpl/clock.h"
#include "rpl/log.h"

struct rpl_progress {
    char label[64];
    uint64_t total;
    double start;     /* seconds, CLOCK_MONOTONIC */
    double last_draw; /* seconds, CLOCK_MONOTONIC */
};

rpl_progress *rpl_progress_start(const char *label, uint64_t total)
{
    rpl_progress *p;

    if (!isatty(STDERR_FILENO) || rpl_log_get_level() < RPL_LOG_WARN)
        return NULL;
    p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    snprintf(p->label, sizeof(p->label), "%s", label);
    p->total = total;
    p->start = rpl_clock_mono_s();
    return p;
}

void rpl_progress_update(rpl_progress *p, uint64_t done)
{
    double now;

    if (!p)
        return;
    now = rpl_clock_mono_s();
    if (now - p->last_draw < 0.1)
        return;
    p->last_draw = now;
    if (p->total) {
        char eta[32] = "";
        /* The remaining work at the average rate so far, once there is a rate. */
        if (done > 0 && done < p->total && now - p->start >= 1.0) {
            double left = (now - p->start) * (double)(p->total - done) / (double)done;
            unsigned long s = (unsigned long)(left + 0.5);
            if (s >= 3600)
                snprintf(eta, sizeof(eta), " ETA %luh%02lum", s / 3600, s / 60 % 60);
            else
                snprintf(eta, sizeof(eta), " ETA %lum%02lus", s / 60, s % 60);
        }
        fprintf(stderr, "\r%s: %llu/%llu (%.0f%%)%s\033[K", p->label, (unsigned long long)done,
                (unsigned long long)p->total, 100.0 * (double)done / (double)p->total, eta);
    } else
        fprintf(stderr, "\r%s: %llu\033[K", p->label, (unsigned long long)done);
    fflush(stderr);
}

void rpl_progress_finish(rpl_progress *p)
{
    if (!p)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    free(p);
}
