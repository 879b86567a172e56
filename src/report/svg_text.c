/*
 * Widths of chart text and names shortened to fit (see svg_text.h).  The
 * widths are estimates: a chart has no font metrics, and the viewer picks
 * the font.  Rounding up from DejaVu Sans keeps a label inside its bar in
 * the narrower fonts too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_text.h"

#include "rpl/error.h"
#include "rpl/kernel_filter.h"
#include "rpl/strbuf.h"

#define MIN_COLS       5
#define CHECKER_EM     0.6 /* tests/tools/check_svg.py: 0.6 x font-size a character */
#define KERNEL_MIN_COL 16  /* rpl_kernel_labels's narrowest label */

/* Width of one character in em, from its first byte. */
static double char_em(unsigned char c)
{
    if (c >= 0x80) /* anything beyond ASCII: as wide as an M */
        return 1.0;
    if (strchr("MWmw@%", c))
        return 1.0;
    if (strchr("<>=+~#&", c))
        return 0.85;
    if (c >= 'A' && c <= 'Z')
        return 0.8;
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
        return 0.65;
    return 0.5; /* spaces, punctuation, '_' */
}

double rpl_svg_text_width(const char *s, double font)
{
    double em = 0;
    size_t cols = 0;

    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p & 0xC0) == 0x80)
            continue;
        cols++;
        em += char_em(*p);
    }
    return font * fmax(em, CHECKER_EM * (double)cols);
}

/* Columns of the widest text that may fit max_w: no character is narrower than 0.6 em. */
static size_t max_cols(double max_w, double font)
{
    double cols = floor(max_w / (CHECKER_EM * font));

    return cols > 0 ? (size_t)fmin(cols, 100000) : 0;
}

int rpl_svg_fit_text(char **out, const char *s, double max_w, double font)
{
    size_t cols = rpl_utf8_columns(s), upper = max_cols(max_w, font);

    *out = NULL;
    if (rpl_svg_text_width(s, font) <= max_w)
        return (*out = strdup(s)) ? 0 : rpl_error_oom();
    for (size_t c = upper < cols ? upper : cols - 1; c >= MIN_COLS; c--) {
        char *e = rpl_utf8_elide(s, c, c / 2, 0); /* its front, "…", its end */
        if (!e)
            return rpl_error_oom();
        if (rpl_svg_text_width(e, font) <= max_w) {
            *out = e;
            return 0;
        }
        free(e);
    }
    return 0;
}

/*
 * The table label of `name` in the widest column count that fits, or NULL;
 * also NULL where the label cuts into the short name (`short_name`, "ns::f"):
 * "f" tells more than "ns::…f<…>(…)".
 */
static int fit_kernel_label(char **out, const char *name, const char *short_name, double max_w,
                            double font)
{
    size_t upper = max_cols(max_w, font), cols = rpl_utf8_columns(name);

    *out = NULL;
    for (size_t c = upper < cols ? upper : cols - 1; c >= KERNEL_MIN_COL; c--) {
        char **labels;
        int rc = rpl_kernel_labels(&labels, &name, 1, c);
        if (rc)
            return rc;
        if (rpl_svg_text_width(labels[0], font) <= max_w) {
            if (strncmp(labels[0], short_name, strlen(short_name)) == 0) {
                *out = labels[0];
                labels[0] = NULL;
            }
            rpl_kernel_labels_free(labels, 1);
            break;
        }
        rpl_kernel_labels_free(labels, 1);
    }
    return 0;
}

/* The function name of a short kernel name: what follows its last "::" outside "<>". */
static const char *unqualified(const char *short_name)
{
    const char *last = short_name;
    int depth = 0;

    for (const char *p = short_name; *p; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (depth == 0 && p[0] == ':' && p[1] == ':')
            last = p + 2;
    }
    return *last ? last : short_name;
}

/*
 * rocpd's copy names (MEMORY_COPY_HOST_TO_DEVICE, MEMORY_SET) read as "H2D
 * copy" and "memset"; other names stay.
 */
static void copy_short_name(char *buf, size_t cap, const char *name)
{
    static const char copy[] = "MEMORY_COPY_";
    const char *to = strstr(name, "_TO_");

    if (strcmp(name, "MEMORY_SET") == 0)
        snprintf(buf, cap, "memset");
    else if (strncmp(name, copy, sizeof(copy) - 1) == 0 && to && to[4])
        snprintf(buf, cap, "%c2%c copy", name[sizeof(copy) - 1], to[4]);
    else
        snprintf(buf, cap, "%s", name);
}

int rpl_svg_fit_name(char **out, const char *name, const char *mangled, bool is_kernel,
                     double max_w, double font)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char copy[32];
    const char *base;
    int rc;

    *out = NULL;
    if (rpl_svg_text_width(name, font) <= max_w)
        return rpl_svg_fit_text(out, name, max_w, font);
    if (!is_kernel) {
        copy_short_name(copy, sizeof(copy), name);
        return rpl_svg_fit_text(out, copy, max_w, font);
    }
    rc = rpl_kernel_short_name(&sb, mangled ? mangled : "", name);
    base = sb.len ? rpl_strbuf_cstr(&sb) : name;
    if (!rc)
        rc = fit_kernel_label(out, name, base, max_w, font);
    if (!rc && !*out) {
        if (rpl_svg_text_width(base, font) > max_w)
            base = unqualified(base);
        rc = rpl_svg_fit_text(out, base, max_w, font);
    }
    rpl_strbuf_release(&sb);
    return rc;
}
