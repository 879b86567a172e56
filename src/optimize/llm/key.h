/* Loading and wiping the API key (key.c). */
#ifndef RPL_LLM_KEY_H
#define RPL_LLM_KEY_H

#include "rpl/llm.h"

/* "OPENAI_API_KEY" or "ANTHROPIC_API_KEY". */
const char *rpl_llm_key_env_name(rpl_llm_provider provider);

/*
 * The key from the file `path` (when not NULL) or else from the provider's
 * environment variable; *out is NULL when the variable is unset or empty.
 * A file that is missing or holds no key is an error.  Free with
 * rpl_llm_key_free, which wipes it first.
 */
int rpl_llm_key_load(char **out, rpl_llm_provider provider, const char *path);
void rpl_llm_key_free(char *key);

#endif
