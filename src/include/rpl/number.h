/*
 * Whole numbers read from text that people or other programs wrote
 * (environment variables, CSV columns).
 */
#ifndef RPL_NUMBER_H
#define RPL_NUMBER_H

#include <stdbool.h>
#include <stdint.h>

/*
 * `s` as a decimal number: digits only (no sign, space or other text),
 * within 64 bits.  Sets *out and returns true, or returns false and leaves
 * *out alone (NULL and "" are no number).
 */
bool rpl_parse_u64(const char *s, uint64_t *out);

#endif
