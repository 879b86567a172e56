/*
 * Prompt templates: loading (per file, an override directory first) and
 * rendering of {{name}} placeholders.  Rendering is one pass over the
 * template, so inserted values (kernel source, compiler output, model text)
 * are never read as placeholders themselves.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/llm_prompt.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"

/* A template larger than this is surely not a prompt. */
#define PROMPT_MAX_BYTES (1u << 20)
#define NAME_MAX_LEN     64

static const char *const file_names[RPL_PROMPT_KINDS] = {"system.md", "user.md", "repair.md",
                                                         "contract.md"};

/* Every placeholder; the contract gets the list without its last entry. */
static const char *const placeholders[] = {
    "kernel_name", "source_file",   "signature",  "iteration", "max_iterations",
    "repair",      "max_repairs",   "arch_facts", "geometry",  "roofline",
    "resources",   "critical_path", "bottleneck", "att",       "archive",
    "feedback",    "kernel",        "contract",   NULL};
static const char *const contract_placeholders[] = {
    "kernel_name", "source_file", "signature", "iteration", "max_iterations", "repair",
    "max_repairs", "arch_facts",  "geometry",  "roofline",  "resources",      "critical_path",
    "bottleneck",  "att",         "archive",   "feedback",  "kernel",         NULL};

const char *rpl_prompt_file_name(rpl_prompt_kind kind)
{
    return (unsigned)kind < RPL_PROMPT_KINDS ? file_names[kind] : "?";
}

const char *const *rpl_prompt_placeholders(rpl_prompt_kind kind)
{
    return kind == RPL_PROMPT_CONTRACT ? contract_placeholders : placeholders;
}

/*
 * At p (just after "{{"): blanks, a name, blanks, "}}".  Sets the name's
 * extent and returns the length up to and including "}}", or 0 when this is
 * no placeholder.
 */
static size_t placeholder_at(const char *p, const char **name, size_t *name_len)
{
    const char *q = p;

    while (*q == ' ')
        q++;
    *name = q;
    while ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_')
        q++;
    *name_len = (size_t)(q - *name);
    if (*name_len == 0 || *name_len > NAME_MAX_LEN || isdigit((unsigned char)**name))
        return 0;
    while (*q == ' ')
        q++;
    if (q[0] != '}' || q[1] != '}')
        return 0;
    return (size_t)(q + 2 - p);
}

static const rpl_prompt_var *find_var(const rpl_prompt_var *vars, size_t n, const char *name,
                                      size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(vars[i].name) == len && memcmp(vars[i].name, name, len) == 0)
            return &vars[i];
    return NULL;
}

int rpl_prompt_render(char **out, const char *what, const char *tmpl, const rpl_prompt_var *vars,
                      size_t n_vars)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    const char *p = tmpl;
    unsigned line = 1;
    int rc = 0;

    *out = NULL;
    while (rc == 0 && *p) {
        const char *open = strstr(p, "{{");
        const char *name;
        size_t name_len, len;
        const rpl_prompt_var *v;

        if (!open) {
            rc = rpl_strbuf_puts(&sb, p);
            break;
        }
        for (const char *c = p; c < open; c++)
            line += *c == '\n';
        if ((rc = rpl_strbuf_put(&sb, p, (size_t)(open - p))) != 0)
            break;
        len = placeholder_at(open + 2, &name, &name_len);
        if (len == 0) { /* a literal brace; "{{{x}}" is "{" and a placeholder */
            rc = rpl_strbuf_putc(&sb, '{');
            p = open + 1;
            continue;
        }
        if (!(v = find_var(vars, n_vars, name, name_len))) {
            rc = rpl_error_set(RPL_EUSAGE, "%s:%u: unknown placeholder {{%.*s}}", what, line,
                               (int)name_len, name);
            break;
        }
        if (v->value)
            rc = rpl_strbuf_puts(&sb, v->value);
        p = open + 2 + len;
    }
    if (rc != 0) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    if (!sb.ptr && rpl_strbuf_grow(&sb, 0) != 0)
        return rpl_error_oom();
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

/* Render against every allowed name with empty values: finds unknown placeholders. */
static int check_template(rpl_prompt_kind kind, const char *path, const char *text)
{
    const char *const *names = rpl_prompt_placeholders(kind);
    rpl_prompt_var vars[32];
    size_t n = 0;
    char *rendered;
    int rc;

    while (names[n] && n < sizeof(vars) / sizeof(vars[0])) {
        vars[n].name = names[n];
        vars[n].value = "";
        n++;
    }
    rc = rpl_prompt_render(&rendered, path, text, vars, n);
    free(rendered);
    return rc;
}

void rpl_prompt_set_free(rpl_prompt_set *set)
{
    if (!set)
        return;
    for (int k = 0; k < RPL_PROMPT_KINDS; k++) {
        free(set->text[k]);
        free(set->path[k]);
    }
    free(set);
}

static bool is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int load_one(rpl_prompt_set *set, rpl_prompt_kind kind, const char *default_dir,
                    const char *override_dir)
{
    const char *dirs[2] = {override_dir, default_dir};
    size_t len;
    int rc;

    for (int i = 0; i < 2; i++) {
        char *path;
        if (!dirs[i])
            continue;
        if ((rc = rpl_path_join(&path, dirs[i], file_names[kind])) != 0)
            return rc;
        if (!is_file(path)) {
            free(path);
            continue;
        }
        set->path[kind] = path;
        if ((rc = rpl_file_read_all(path, PROMPT_MAX_BYTES, &set->text[kind], &len)) != 0)
            return rc;
        if (memchr(set->text[kind], '\0', len))
            return rpl_error_set(RPL_EUSAGE, "%s: a prompt template must be text (NUL byte)", path);
        rpl_log_debug("prompt %s from %s", file_names[kind], path);
        return check_template(kind, path, set->text[kind]);
    }
    if (override_dir)
        return rpl_error_set(RPL_EUSAGE, "prompt template %s is neither in '%s' nor in '%s'",
                             file_names[kind], override_dir,
                             default_dir ? default_dir : "(no default directory)");
    return rpl_error_set(RPL_EENV, "prompt template %s not found in '%s'; use --prompt-dir",
                         file_names[kind], default_dir ? default_dir : "(no default directory)");
}

int rpl_prompt_set_load(rpl_prompt_set **out, const char *default_dir, const char *override_dir)
{
    rpl_prompt_set *set;
    struct stat st;
    int rc = 0;

    *out = NULL;
    if (override_dir) {
        if (stat(override_dir, &st) != 0)
            return rpl_error_set(RPL_EUSAGE, "--prompt-dir '%s': %s", override_dir,
                                 strerror(errno));
        if (!S_ISDIR(st.st_mode))
            return rpl_error_set(RPL_EUSAGE, "--prompt-dir '%s': not a directory", override_dir);
    }
    if (!(set = calloc(1, sizeof(*set))))
        return rpl_error_oom();
    for (int k = 0; rc == 0 && k < RPL_PROMPT_KINDS; k++)
        rc = load_one(set, (rpl_prompt_kind)k, default_dir, override_dir);
    if (rc != 0) {
        rpl_prompt_set_free(set);
        return rc;
    }
    *out = set;
    return 0;
}
