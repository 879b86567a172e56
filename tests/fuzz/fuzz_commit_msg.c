/*
 * libFuzzer target for commit messages and their trailers (rpl/optgit.h).
 *
 * 1. The input as a commit message read back: rpl_trailers_parse must not
 *    fail on any text (other than running out of memory) nor crash.
 * 2. The input cut at 0x1f bytes into kernel, strategy, body and then
 *    key/value pairs: whenever rpl_commit_msg_format accepts them, parsing
 *    the message must give back exactly those trailers, in order.  A value
 *    that formats but does not come back is a bug in the formatter's checks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/optgit.h"

#define FIELDS_MAX 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_parse(const char *text)
{
    rpl_trailers *t;
    int rc = rpl_trailers_parse(&t, text);

    if (rc == RPL_ENOMEM)
        return;
    if (rc != 0)
        abort();
    for (size_t i = 0; i < t->count; i++)
        if (!t->items[i].key || !t->items[i].value)
            abort();
    rpl_trailers_free(t);
}

static void check_round_trip(char *text)
{
    char *field[FIELDS_MAX];
    rpl_trailer tr[FIELDS_MAX / 2];
    size_t n = 0, nt = 0;
    rpl_commit_msg m = {.time_change_pct = -12.3, .ci_half_pct = 0.8};
    rpl_trailers *back;
    char *msg, *p = text;

    while (n < FIELDS_MAX) {
        field[n++] = p;
        if (!(p = strchr(p, 0x1f)))
            break;
        *p++ = '\0';
    }
    if (n < 3)
        return;
    m.kernel = field[0];
    m.strategy = field[1];
    m.body = field[2];
    for (size_t i = 3; i + 1 < n; i += 2) {
        tr[nt].key = field[i];
        tr[nt].value = field[i + 1];
        nt++;
    }
    m.trailers = tr;
    m.n_trailers = nt;
    if (rpl_commit_msg_format(&m, &msg) != 0)
        return;
    if (strncmp(msg, "perf(", 5) != 0)
        abort();
    if (rpl_trailers_parse(&back, msg) != 0) {
        free(msg);
        return; /* out of memory */
    }
    if (back->count != nt) {
        fprintf(stderr, "formatted %zu trailers, parsed %zu from:\n%s", nt, back->count, msg);
        abort();
    }
    for (size_t i = 0; i < nt; i++) {
        if (strcmp(back->items[i].key, tr[i].key) != 0 ||
            strcmp(back->items[i].value, tr[i].value) != 0) {
            fprintf(stderr, "trailer %zu: '%s: %s' came back as '%s: %s'\n", i, tr[i].key,
                    tr[i].value, back->items[i].key, back->items[i].value);
            abort();
        }
    }
    rpl_trailers_free(back);
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    check_parse(text);
    check_round_trip(text);
    free(text);
    return 0;
}
