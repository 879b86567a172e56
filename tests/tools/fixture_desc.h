/*
 * Fixture descriptions: a small readable JSON document that becomes an
 * rpl_trace (docs/schemas/fixture-description.md).
 */
#ifndef RPL_FIXTURE_DESC_H
#define RPL_FIXTURE_DESC_H

#include <cjson/cJSON.h>

#include "rpl/rocpd.h"
#include "rpl/trace.h"

/*
 * Build a trace from a parsed description; `file` names it in messages.
 * *guid is the description's "guid" (pointing into `doc`) or NULL.
 * Bad descriptions fail with RPL_EINPUT and a one-line message.
 */
int rpl_fixture_build(rpl_trace **out, const char **guid, const cJSON *doc, const char *file);

#endif
