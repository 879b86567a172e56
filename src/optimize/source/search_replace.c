/*
 * SEARCH/REPLACE blocks applied to one region of a file (a kernel's
 * definition).  Pure text; the splice that follows parses the result.
 *
 * Each block's SEARCH must match exactly one place in the region as the
 * earlier blocks left it: byte for byte first; else as whole lines with
 * leading and trailing blanks ignored (and blank lines around the SEARCH
 * dropped), in which case the REPLACE lines are re-indented from the
 * SEARCH's indentation to the region's.  A SEARCH found only outside the
 * region, found nowhere, or found twice is an error naming the block.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/kernel_source.h"
#include "rpl/strbuf.h"

typedef struct line {
    size_t b, e; /* [b, e) without the '\n' */
} line;

typedef struct lines {
    line *v;
    size_t n;
} lines;

static int split_lines(const char *s, size_t len, lines *out)
{
    size_t n = 1;

    for (size_t i = 0; i < len; i++)
        n += s[i] == '\n';
    out->n = 0;
    out->v = malloc(n * sizeof(*out->v));
    if (!out->v)
        return rpl_error_oom();
    size_t b = 0;
    for (size_t i = 0; i <= len; i++)
        if (i == len || s[i] == '\n') {
            out->v[out->n].b = b;
            out->v[out->n].e = i;
            out->n++;
            b = i + 1;
        }
    return 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The line without its leading and trailing blanks. */
static void trim(const char *s, line l, size_t *b, size_t *e)
{
    *b = l.b;
    *e = l.e;
    while (*b < *e && is_blank(s[*b]))
        (*b)++;
    while (*e > *b && is_blank(s[*e - 1]))
        (*e)--;
}

static bool same_trimmed(const char *s1, line l1, const char *s2, line l2)
{
    size_t b1, e1, b2, e2;

    trim(s1, l1, &b1, &e1);
    trim(s2, l2, &b2, &e2);
    return e1 - b1 == e2 - b2 && memcmp(s1 + b1, s2 + b2, e1 - b1) == 0;
}

static bool blank_line(const char *s, line l)
{
    size_t b, e;

    trim(s, l, &b, &e);
    return b == e;
}

/* Occurrences of needle in hay (overlapping ones counted); the first at *first. */
static size_t count_exact(const char *hay, size_t hlen, const char *needle, size_t nlen,
                          size_t *first)
{
    size_t count = 0, at = 0;
    const char *p;

    while (at + nlen <= hlen && (p = memmem(hay + at, hlen - at, needle, nlen)) != NULL) {
        if (count++ == 0)
            *first = (size_t)(p - hay);
        at = (size_t)(p - hay) + 1;
    }
    return count;
}

/* Matches of the (non-blank-trimmed) search lines in hay's lines; the first at *first. */
static size_t count_lines(const char *hay, const lines *hl, const char *search, const line *sl,
                          size_t m, size_t *first)
{
    size_t count = 0;

    for (size_t i = 0; i + m <= hl->n; i++) {
        size_t j = 0;
        while (j < m && same_trimmed(hay, hl->v[i + j], search, sl[j]))
            j++;
        if (j == m && count++ == 0)
            *first = i;
    }
    return count;
}

/* REPLACE with the SEARCH's indentation `from` changed to the region's `to`. */
static int reindent(rpl_strbuf *sb, const char *rep, size_t rlen, const char *from, size_t nfrom,
                    const char *to, size_t nto)
{
    lines rl;
    int rc;

    /* The matched lines end before their last '\n': drop one from the replacement. */
    if (rlen && rep[rlen - 1] == '\n')
        rlen--;
    if ((rc = split_lines(rep, rlen, &rl)) != 0)
        return rc;
    for (size_t i = 0; i < rl.n && !rc; i++) {
        const char *s = rep + rl.v[i].b;
        size_t n = rl.v[i].e - rl.v[i].b;
        if (i > 0)
            rc = rpl_strbuf_putc(sb, '\n');
        if (!rc && n >= nfrom && memcmp(s, from, nfrom) == 0 && n > nfrom) {
            rc = rpl_strbuf_put(sb, to, nto);
            s += nfrom;
            n -= nfrom;
        }
        if (!rc)
            rc = rpl_strbuf_put(sb, s, n);
    }
    free(rl.v);
    return rc;
}

static size_t leading_blanks(const char *s, line l)
{
    size_t n = 0;

    while (l.b + n < l.e && (s[l.b + n] == ' ' || s[l.b + n] == '\t'))
        n++;
    return n;
}

/* Found outside the region, exactly or line by line. */
static bool found_outside(const char *text, size_t len, size_t begin, size_t end,
                          const rpl_search_replace *blk, const line *sl, size_t m)
{
    const char *parts[2] = {text, text + end};
    size_t sizes[2] = {begin, len - end}, first;

    for (int p = 0; p < 2; p++) {
        lines hl;
        bool hit;
        if (count_exact(parts[p], sizes[p], blk->search, blk->search_len, &first) > 0)
            return true;
        if (split_lines(parts[p], sizes[p], &hl) != 0)
            return false;
        hit = count_lines(parts[p], &hl, blk->search, sl, m, &first) > 0;
        free(hl.v);
        if (hit)
            return true;
    }
    return false;
}

/* The first non-blank line of the SEARCH, shortened for a message. */
static void first_line(const rpl_search_replace *blk, const line *sl, char *buf, size_t size)
{
    size_t b, e;

    trim(blk->search, sl[0], &b, &e);
    snprintf(buf, size, "%.*s%s", (int)(e - b > 60 ? 60 : e - b), blk->search + b,
             e - b > 60 ? "..." : "");
}

/* A block whose lines match nowhere in the kernel: outside it, or nowhere at all. */
static int no_match(const char *text, size_t len, size_t begin, size_t end,
                    const rpl_search_replace *blk, const line *sl, size_t n, size_t number)
{
    char shown[80];

    first_line(blk, sl, shown, sizeof(shown));
    if (found_outside(text, len, begin, end, blk, sl, n))
        return rpl_error_set(RPL_EINPUT,
                             "SEARCH/REPLACE block %zu matches code outside the kernel "
                             "('%s'); only the kernel may change",
                             number, shown);
    return rpl_error_set(RPL_EINPUT,
                         "SEARCH/REPLACE block %zu matches nothing in the kernel (its "
                         "first line: '%s'); SEARCH must repeat the kernel's lines",
                         number, shown);
}

/* `cur` with its n lines from hl[first] replaced by the block's REPLACE, in their indentation. */
static int replace_lines(rpl_strbuf *next, const rpl_strbuf *cur, const line *hl, size_t first,
                         size_t n, const rpl_search_replace *blk, const line *sl)
{
    line l0 = hl[first], ln = hl[first + n - 1];
    size_t nto = leading_blanks(cur->ptr, l0), nfrom = leading_blanks(blk->search, sl[0]);
    int rc = rpl_strbuf_put(next, cur->ptr, l0.b);

    if (!rc)
        rc = reindent(next, blk->replace ? blk->replace : "", blk->replace_len,
                      blk->search + sl[0].b, nfrom, cur->ptr + l0.b, nto);
    if (!rc)
        rc = rpl_strbuf_put(next, cur->ptr + ln.e, cur->len - ln.e);
    return rc;
}

/* One block on `cur` (the region as it stands); the result replaces it. */
static int apply_one(rpl_strbuf *cur, const char *text, size_t len, size_t begin, size_t end,
                     const rpl_search_replace *blk, size_t number)
{
    rpl_strbuf next = RPL_STRBUF_INIT;
    lines sl = {0}, hl = {0};
    size_t first = 0, count, m, lo = 0;
    int rc;

    if (!blk->search || blk->search_len == 0)
        return rpl_error_set(RPL_EINPUT, "SEARCH/REPLACE block %zu has an empty SEARCH part",
                             number);
    count = count_exact(cur->ptr, cur->len, blk->search, blk->search_len, &first);
    if (count == 1) {
        rc = rpl_strbuf_put(&next, cur->ptr, first);
        if (!rc && blk->replace_len)
            rc = rpl_strbuf_put(&next, blk->replace, blk->replace_len);
        if (!rc)
            rc = rpl_strbuf_put(&next, cur->ptr + first + blk->search_len,
                                cur->len - first - blk->search_len);
        goto done;
    }
    if ((rc = split_lines(blk->search, blk->search_len, &sl)) != 0)
        goto done;
    /* Blank lines around the SEARCH are not part of what it looks for. */
    m = sl.n;
    while (lo < m && blank_line(blk->search, sl.v[lo]))
        lo++;
    while (m > lo && blank_line(blk->search, sl.v[m - 1]))
        m--;
    if (m == lo) {
        rc = rpl_error_set(RPL_EINPUT, "SEARCH/REPLACE block %zu has an empty SEARCH part", number);
        goto done;
    }
    if (count == 0) {
        if ((rc = split_lines(cur->ptr, cur->len, &hl)) != 0)
            goto done;
        count = count_lines(cur->ptr, &hl, blk->search, sl.v + lo, m - lo, &first);
    }
    if (count > 1) {
        rc = rpl_error_set(RPL_EINPUT,
                           "SEARCH/REPLACE block %zu matches %zu places in the kernel; give more "
                           "lines so that it matches one",
                           number, count);
        goto done;
    }
    if (count == 0)
        rc = no_match(text, len, begin, end, blk, sl.v + lo, m - lo, number);
    else
        rc = replace_lines(&next, cur, hl.v, first, m - lo, blk, sl.v + lo);
done:
    free(sl.v);
    free(hl.v);
    if (rc == 0) {
        rpl_strbuf_release(cur);
        *cur = next;
        if (!cur->ptr)
            rc = rpl_strbuf_put(cur, "", 0);
    } else {
        rpl_strbuf_release(&next);
    }
    return rc;
}

int rpl_search_replace_apply(char **out, size_t *out_len, const char *text, size_t len,
                             size_t begin, size_t end, const rpl_search_replace *blocks,
                             size_t n_blocks)
{
    rpl_strbuf cur = RPL_STRBUF_INIT;
    int rc;

    *out = NULL;
    *out_len = 0;
    if (begin > end || end > len)
        return rpl_error_set(RPL_EUSAGE, "region %zu-%zu lies outside the %zu-byte text", begin,
                             end, len);
    if (n_blocks == 0)
        return rpl_error_set(RPL_EINPUT, "no SEARCH/REPLACE blocks to apply");
    if ((rc = rpl_strbuf_put(&cur, text + begin, end - begin)) != 0)
        return rc;
    for (size_t i = 0; i < n_blocks; i++)
        if ((rc = apply_one(&cur, text, len, begin, end, &blocks[i], i + 1)) != 0) {
            rpl_strbuf_release(&cur);
            return rc;
        }
    *out_len = cur.len;
    *out = rpl_strbuf_detach(&cur);
    return 0;
}
