/* The reply as lines, shared by the extraction files (patch_*.c). */
#ifndef RPL_LLM_PATCH_INT_H
#define RPL_LLM_PATCH_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "rpl/llm.h"
#include "rpl/strbuf.h"

typedef struct rpl_line {
    const char *p;
    size_t len; /* without the line end ("\n" or "\r\n") */
} rpl_line;

typedef enum rpl_sr_marker {
    RPL_SR_NONE = 0,
    RPL_SR_SEARCH,  /* <<<<<<< SEARCH */
    RPL_SR_DIVIDER, /* ======= */
    RPL_SR_REPLACE, /* >>>>>>> REPLACE */
    RPL_SR_BAD      /* starts like a marker but is not one */
} rpl_sr_marker;

/* What a line is as a SEARCH/REPLACE delimiter. */
rpl_sr_marker rpl_sr_classify(const rpl_line *line);

/*
 * Parse the SEARCH/REPLACE blocks of `lines` into patch->edits (kind set to
 * SEARCH_REPLACE).  RPL_EINPUT with a message naming the block for a
 * malformed one.
 */
int rpl_sr_parse(rpl_llm_patch *patch, const rpl_line *lines, size_t n);

/* Append the lines [from, to) to `sb`, each ending with '\n'. */
int rpl_lines_join(rpl_strbuf *sb, const rpl_line *lines, size_t from, size_t to);

#endif
