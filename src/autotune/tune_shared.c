/* What the tune*.c files share: a config's parameter values, and the run's warnings. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/log.h"
#include "tune_int.h"

void tune_values(const tuner *t, size_t c, double *vals, tune_text *text, const char **vp,
                 const char *out)
{
    for (size_t j = 0; j < t->s->nparams; j++) {
        vals[j] = rpl_tune_space_value(t->s, c, j);
        rpl_tune_value_text(text[j], sizeof(text[j]), vals[j]);
        vp[j] = text[j];
    }
    vp[t->s->nparams] = out;
}

void tune_warn(tuner *t, const char *fmt, ...)
{
    char line[1024], **w;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    rpl_log_warn("%s", line);
    pthread_mutex_lock(&t->lock);
    w = realloc(t->r->warnings, (t->r->nwarnings + 1) * sizeof(*w));
    if (w) {
        t->r->warnings = w;
        if ((w[t->r->nwarnings] = strdup(line)) != NULL)
            t->r->nwarnings++;
    }
    pthread_mutex_unlock(&t->lock);
}
