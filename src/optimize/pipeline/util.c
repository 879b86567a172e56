/* Small helpers of the candidate pipeline: words, commands, clocks, messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipe_int.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/spawn.h"

void pipe_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

int pipe_argv_push(char ***argv, size_t *n, const char *word)
{
    char **grown = realloc(*argv, (*n + 2) * sizeof(char *));

    if (!grown)
        return rpl_error_oom();
    *argv = grown;
    if (!(grown[*n] = strdup(word)))
        return rpl_error_oom();
    grown[++*n] = NULL;
    return 0;
}

/* Blanks separate words; '...' and "..." group them (no escapes, no other shell syntax). */
int pipe_split_words(char ***out, const char *text)
{
    rpl_strbuf w = RPL_STRBUF_INIT;
    char **argv = NULL;
    size_t n = 0;
    int rc = 0;

    *out = NULL;
    for (const char *s = text ? text : ""; rc == 0 && *s;) {
        bool any = false;
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        while (rc == 0 && *s && *s != ' ' && *s != '\t' && *s != '\n') {
            if (*s == '\'' || *s == '"') {
                const char *close = strchr(s + 1, *s);
                if (!close) {
                    rc = rpl_error_set(RPL_EINPUT, "unbalanced %c in '%s'", *s, text);
                    break;
                }
                rc = rpl_strbuf_put(&w, s + 1, (size_t)(close - s - 1));
                s = close + 1;
            } else {
                rc = rpl_strbuf_putc(&w, *s++);
            }
            any = true;
        }
        if (rc == 0 && any) {
            rc = pipe_argv_push(&argv, &n, w.ptr ? w.ptr : "");
            rpl_strbuf_reset(&w);
        }
    }
    rpl_strbuf_release(&w);
    if (rc == 0 && n == 0)
        rc = rpl_error_set(RPL_EINPUT, "the program to run is empty");
    if (rc) {
        pipe_argv_free(argv);
        return rc;
    }
    *out = argv;
    return 0;
}

int pipe_argv_expand(char ***out, const char *const *argv, const char *const vars[4])
{
    static const char *const names[4] = {"{src}", "{out}", "{dir}", "{arch}"};
    rpl_strbuf w = RPL_STRBUF_INIT;
    char **res = NULL;
    size_t n = 0;
    int rc = 0;

    *out = NULL;
    for (size_t i = 0; rc == 0 && argv && argv[i]; i++) {
        rpl_strbuf_reset(&w);
        for (const char *s = argv[i]; rc == 0 && *s;) {
            size_t k = 0;
            while (k < 4 && strncmp(s, names[k], strlen(names[k])) != 0)
                k++;
            if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
                rc = rpl_strbuf_putc(&w, *s); /* a literal brace, as in command templates */
                s += 2;
            } else if (k < 4 && vars && vars[k]) {
                rc = rpl_strbuf_puts(&w, vars[k]);
                s += strlen(names[k]);
            } else {
                rc = rpl_strbuf_putc(&w, *s++);
            }
        }
        if (rc == 0)
            rc = pipe_argv_push(&res, &n, w.ptr ? w.ptr : "");
    }
    rpl_strbuf_release(&w);
    if (rc) {
        pipe_argv_free(res);
        return rc;
    }
    *out = res;
    return 0;
}

int pipe_argv_text(char **out, const char *const *argv)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    for (size_t i = 0; rc == 0 && argv && argv[i]; i++) {
        bool quote = !argv[i][0] || strpbrk(argv[i], " \t\"'\\$`*?") != NULL;
        if (i)
            rc = rpl_strbuf_putc(&sb, ' ');
        if (rc == 0)
            rc = rpl_strbuf_printf(&sb, quote ? "'%s'" : "%s", argv[i]);
    }
    if (rc == 0 && !sb.ptr)
        rc = rpl_strbuf_puts(&sb, "");
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

const char *pipe_last_line(const char *text)
{
    static _Thread_local char line[300];

    return rpl_spawn_last_line(line, sizeof(line), text);
}

int pipe_set(char **field, const char *fmt, ...)
{
    rpl_strbuf s = RPL_STRBUF_INIT;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = rpl_strbuf_vprintf(&s, fmt, ap);
    va_end(ap);
    if (rc) {
        rpl_strbuf_release(&s);
        return rc;
    }
    free(*field);
    *field = rpl_strbuf_detach(&s);
    return 0;
}

void pipe_progress(const rpl_pipe *p, const char *cand, rpl_pipe_step step, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    if (!p->opts.progress)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    p->opts.progress(p->opts.progress_ctx, cand, step, line);
}

int pipe_run(rpl_spawn_result *res, const char *const *argv, const char *cwd, int timeout_ms,
             rpl_strbuf *log)
{
    rpl_spawn_opts o = {.argv = argv,
                        .cwd = cwd,
                        .timeout_ms = timeout_ms,
                        .capture_stdout = true,
                        .capture_stderr = true};
    char *cmd = NULL;
    int rc;

    memset(res, 0, sizeof(*res));
    if (log && pipe_argv_text(&cmd, argv) == 0) {
        rpl_strbuf_printf(log, "$ %s\n", cmd);
        free(cmd);
    }
    rc = rpl_spawn_run(res, &o);
    /* A Ctrl-C reaches the child too; what it left undone says nothing about the candidate. */
    if (rpl_interrupted()) {
        if (log)
            rpl_strbuf_puts(log, "[interrupted]\n");
        return rpl_interrupt_check();
    }
    if (log && (rc == 0 || rc == RPL_ETIMEOUT)) {
        rpl_strbuf_puts(log, res->out ? res->out : "");
        rpl_strbuf_puts(log, res->err ? res->err : "");
        if (res->timed_out)
            rpl_strbuf_printf(log, "[stopped after %d ms]\n", timeout_ms);
        else if (!res->exited)
            rpl_strbuf_printf(log, "[killed by signal %d]\n", res->term_signal);
        else if (res->exit_code)
            rpl_strbuf_printf(log, "[exit status %d]\n", res->exit_code);
    } else if (log) {
        rpl_strbuf_printf(log, "[cannot run: %s]\n", rpl_error_last()->message);
    }
    return rc;
}
