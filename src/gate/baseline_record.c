/*
 * Recording a measurement into its baseline (`rocm-perf baseline update`,
 * `baseline accept`, and the gate under ROCM_PERF_UPDATE_BASELINES=1), and
 * the command line that does it, which a gate without a baseline suggests.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/baseline.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/baseline_record.h"

/* Shell-quote one word when it needs it. */
static void put_word(rpl_strbuf *out, const char *w)
{
    bool plain = w[0] != '\0';

    for (const char *p = w; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+%@",
                       *p) != NULL;
    rpl_strbuf_putc(out, ' ');
    if (plain) {
        rpl_strbuf_puts(out, w);
        return;
    }
    rpl_strbuf_putc(out, '\'');
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            rpl_strbuf_puts(out, "'\\''");
        else
            rpl_strbuf_putc(out, *p);
    }
    rpl_strbuf_putc(out, '\'');
}

int rpl_gate_update_command(rpl_strbuf *out, const rpl_gate_opts *o, const char *arch)
{
    rpl_strbuf_puts(out, "rocm-perf baseline update");
    put_word(out, "--test");
    put_word(out, o->test);
    put_word(out, "--baseline-dir");
    put_word(out, o->baseline_dir);
    put_word(out, "--arch");
    put_word(out, arch);
    if (o->in.kernel_regex) {
        put_word(out, "--kernel");
        put_word(out, o->in.kernel_regex);
    }
    if (!o->in.nstatic) {
        char w[32];
        snprintf(w, sizeof(w), "%u", o->in.warmup);
        put_word(out, "--warmup");
        put_word(out, w);
    }
    if (o->in.nstatic) {
        put_word(out, "--static");
        for (size_t i = 0; i < o->in.nstatic; i++)
            put_word(out, o->in.static_files[i]);
        if (o->in.block) {
            char w[16];
            snprintf(w, sizeof(w), "%u", o->in.block);
            put_word(out, "--block");
            put_word(out, w);
        }
    } else if (o->in.ntraces) {
        put_word(out, "--trace");
        for (size_t i = 0; i < o->in.ntraces; i++)
            put_word(out, o->in.traces[i]);
    } else {
        char w[16];
        snprintf(w, sizeof(w), "%u", o->in.repetitions);
        put_word(out, "--repetitions");
        put_word(out, w);
        put_word(out, "--");
        for (size_t i = 0; o->in.app_argv[i]; i++)
            put_word(out, o->in.app_argv[i]);
    }
    return rpl_strbuf_cstr(out)[0] ? 0 : rpl_error_oom();
}

/* Move a measured text into the baseline, unless nothing was measured. */
static void take(char **field, char **measured)
{
    if (*measured) {
        free(*field);
        *field = *measured;
        *measured = NULL;
    }
}

int rpl_gate_update_baseline(const rpl_gate_opts *o, const char *path, rpl_gate_measurement *m,
                             rpl_strbuf *report)
{
    rpl_baseline *b = NULL;
    rpl_strbuf changes = RPL_STRBUF_INIT;
    int lock, rc = rpl_baseline_lock(&lock, path);

    if (rc != 0)
        return rc;
    /* Read, change and write under the lock, so that concurrent updates lose nothing. */
    rc = rpl_baseline_read(&b, path);
    if (rc == RPL_ENOTFOUND) {
        rpl_error_clear();
        rc = rpl_baseline_new(&b, o->test, m->arch);
    } else if (rc == 0 && (strcmp(b->test, o->test) != 0 || strcmp(b->arch, m->arch) != 0)) {
        rc = rpl_error_set(RPL_EINPUT, "baseline '%s' is for test '%s' on '%s', not '%s' on '%s'",
                           path, b->test, b->arch, o->test, m->arch);
    }
    if (rc != 0) {
        rpl_baseline_free(b);
        rpl_dir_unlock(lock);
        return rc;
    }
    take(&b->device, &m->device);
    take(&b->driver, &m->driver);
    take(&b->toolkit, &m->toolkit);
    b->tolerance = o->stat.delta;
    b->confidence = o->stat.confidence;
    if (m->statics) {
        rc = rpl_baseline_set_static(b, m->statics, m->nstatics, o->in.block, &changes);
        m->statics = NULL;
        m->nstatics = 0;
    } else {
        b->warmup = o->in.warmup;
        rc = rpl_baseline_set_runtime(b, m->kernels, m->nkernels, &changes);
        if (rc == 0) {
            m->kernels = NULL;
            m->nkernels = 0;
        }
    }
    if (rc == 0 && !o->in.nstatic)
        rc = rpl_baseline_record_run(b, path, &m->gpu, o->reason);
    if (rc == 0)
        rc = rpl_baseline_write(b, path);
    if (rc == 0)
        rc = rpl_strbuf_printf(report, "%s baseline %s (%s section):\n%s",
                               o->reason ? "accepted a move of" : "updated", path,
                               o->in.nstatic ? "static" : "runtime",
                               changes.len ? rpl_strbuf_cstr(&changes) : "  no change\n");
    if (rc == 0 && o->reason)
        rc = rpl_strbuf_printf(report, "  reason: %s\n", o->reason);
    rpl_strbuf_release(&changes);
    rpl_baseline_free(b);
    rpl_dir_unlock(lock);
    return rc;
}
