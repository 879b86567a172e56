/*
 * The prompts of the LLM optimizer (docs/USER_GUIDE.md section 13.7): four
 * template files with named placeholders, templates/llm/{system,user,
 * repair,contract}.md, overridable one by one with --prompt-dir.
 *
 * A placeholder is "{{name}}" (blanks inside the braces allowed), name made
 * of lower-case letters, digits and '_'.  Anything else in braces stays as
 * it is.  Values are inserted once: a value that holds "{{x}}" is not
 * expanded again.  A placeholder the renderer has no value for is an error
 * (RPL_EUSAGE) that names the file, the line and the placeholder; every
 * template is checked when it is loaded, before a model is asked anything.
 */
#ifndef RPL_LLM_PROMPT_H
#define RPL_LLM_PROMPT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rpl_prompt_var {
    const char *name;
    const char *value; /* NULL renders as "" */
} rpl_prompt_var;

/*
 * Render `tmpl` with `vars` (*out, free()).  `what` names the template in
 * messages ("prompts/user.md"): "prompts/user.md:12: unknown placeholder
 * {{roofline_x}}".
 */
int rpl_prompt_render(char **out, const char *what, const char *tmpl, const rpl_prompt_var *vars,
                      size_t n_vars);

typedef enum rpl_prompt_kind {
    RPL_PROMPT_SYSTEM = 0, /* system.md: the model's role */
    RPL_PROMPT_USER,       /* user.md: a new proposal, with every fact */
    RPL_PROMPT_REPAIR,     /* repair.md: after a rejected answer, in the same conversation */
    RPL_PROMPT_CONTRACT,   /* contract.md: the output contract, the {{contract}} of the others */
    RPL_PROMPT_KINDS
} rpl_prompt_kind;

/* "system.md", "user.md", "repair.md", "contract.md". */
const char *rpl_prompt_file_name(rpl_prompt_kind kind);

/*
 * The placeholders a template may use, NULL-terminated: every kind may use
 * all of them but the contract, which may not use {{contract}}.
 */
const char *const *rpl_prompt_placeholders(rpl_prompt_kind kind);

typedef struct rpl_prompt_set {
    char *text[RPL_PROMPT_KINDS];
    char *path[RPL_PROMPT_KINDS]; /* where each one was read */
} rpl_prompt_set;

/*
 * Read the four templates: from `override_dir` where it holds the file,
 * else from `default_dir` (either may be NULL).  A file found in neither is
 * RPL_EENV when only the default was searched and RPL_EUSAGE when an
 * override directory was given; an override directory that does not exist
 * is RPL_EUSAGE.  Every template is checked for unknown placeholders.
 */
int rpl_prompt_set_load(rpl_prompt_set **out, const char *default_dir, const char *override_dir);
void rpl_prompt_set_free(rpl_prompt_set *set);

#ifdef __cplusplus
}
#endif
#endif
