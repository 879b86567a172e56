/*
 * The words of a real compile command that decide how a source parses:
 * include directories, macros, forced includes, the language standard and
 * the GPU architecture, in the spellings of nvcc, clang and hipcc.  The rest
 * (optimisation, warnings, outputs, libraries) does not change the AST and
 * is left out.  Relative paths are taken from the directory the compile
 * runs in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_internal.h"
#include "rpl/autotune.h"
#include "rpl/error.h"

/* An option that takes a value: the clang spelling it becomes. */
typedef struct valued {
    const char *spelling; /* as written: "-I", "--include-path" */
    const char *clang;    /* what libclang gets: "-I" */
    bool joined;          /* also written without a blank or '=': "-IDIR", "-isystemDIR" */
    bool is_path;
} valued;

static const valued valued_options[] = {
    {"-I", "-I", true, true},
    {"--include-path", "-I", false, true},
    {"-isystem", "-isystem", true, true},
    {"--system-include", "-isystem", false, true},
    {"-iquote", "-iquote", true, true},
    {"-idirafter", "-idirafter", true, true},
    {"-include", "-include", false, true},
    {"--pre-include", "-include", false, true},
    {"-D", "-D", true, false},
    {"--define-macro", "-D", false, false},
    {"-U", "-U", true, false},
    {"--undefine-macro", "-U", false, false},
    {"-std", "-std=", false, false},
    {"--std", "-std=", false, false},
};

/* Options whose value names the architecture ("-arch=sm_90", "-gencode arch=...,code=..."). */
static const char *const arch_options[] = {
    "-arch",    "--gpu-architecture", "--cuda-gpu-arch", "--offload-arch", "--amdgpu-target",
    "-gencode", "--generate-code",    "-code",           "--gpu-code"};

/*
 * Match `word` (and the next word) against `spelling`: "-I DIR",
 * "--include-path=DIR", and with `joined` "-IDIR".  *value gets the value
 * and *used the words consumed (0: no match).
 */
static void match(const char *word, const char *next, const char *spelling, bool joined,
                  const char **value, size_t *used)
{
    size_t n = strlen(spelling);

    *used = 0;
    if (strncmp(word, spelling, n) != 0)
        return;
    if (!word[n] && next) {
        *value = next;
        *used = 2;
    } else if (word[n] == '=' || (word[n] && joined)) {
        *value = word + n + (word[n] == '=' && !joined);
        *used = 1;
    }
}

/*
 * The first architecture a value names: "sm_90", "compute_90" (as sm_90),
 * "gfx942" (features after ':' dropped).  "arch=compute_90,code=[sm_90]"
 * gives sm_90 from its first real target.  false when none ("native").
 */
static bool arch_in(const char *value, char *arch, size_t size)
{
    for (const char *s = value; *s; s++) {
        bool boundary = s == value || strchr("=,[ ", s[-1]) != NULL;
        size_t n;
        if (!boundary)
            continue;
        if (strncmp(s, "sm_", 3) == 0 || strncmp(s, "gfx", 3) == 0) {
            n = strcspn(s, ",]: ");
            if (n > 3 && n < size) {
                snprintf(arch, size, "%.*s", (int)n, s);
                return true;
            }
        } else if (strncmp(s, "compute_", 8) == 0) {
            n = strcspn(s + 8, ",]: ");
            if (n > 0 && n + 3 < size) {
                snprintf(arch, size, "sm_%.*s", (int)n, s + 8);
                return true;
            }
        }
    }
    return false;
}

bool ks_flags_arch(const char *const *words, char *arch, size_t size)
{
    for (size_t i = 0; words && words[i]; i++)
        for (size_t k = 0; k < sizeof(arch_options) / sizeof(arch_options[0]); k++) {
            const char *value = NULL;
            size_t used = 0;
            match(words[i], words[i + 1], arch_options[k], false, &value, &used);
            if (used && arch_in(value, arch, size))
                return true;
        }
    return false;
}

/* nvcc's number of an architecture: 900 for sm_90, compute_90 and sm_90a; 0 for another. */
static unsigned cuda_arch_number(const char *arch)
{
    char *end;
    unsigned long n;

    if (strncmp(arch, "sm_", 3) != 0)
        return 0;
    n = strtoul(arch + 3, &end, 10);
    return end != arch + 3 && n > 0 && n < 10000 ? (unsigned)n * 10 : 0;
}

size_t ks_flags_cuda_arch_list(const char *const *words, unsigned *list, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; words && words[i]; i++)
        for (size_t k = 0; k < sizeof(arch_options) / sizeof(arch_options[0]); k++) {
            const char *value = NULL;
            size_t used = 0, at = 0;
            char arch[32];
            unsigned num;
            /* -code names real targets; __CUDA_ARCH_LIST__ holds the virtual ones. */
            if (strcmp(arch_options[k], "-code") == 0 || strcmp(arch_options[k], "--gpu-code") == 0)
                continue;
            match(words[i], words[i + 1], arch_options[k], false, &value, &used);
            if (!used || !arch_in(value, arch, sizeof(arch)) || !(num = cuda_arch_number(arch)))
                continue;
            while (at < n && list[at] < num)
                at++;
            if ((at < n && list[at] == num) || n == max)
                continue;
            memmove(list + at + 1, list + at, (n - at) * sizeof(*list));
            list[at] = num;
            n++;
        }
    return n;
}

/* One word of compile options (or an -Xcompiler list) asks for OpenMP. */
static bool word_openmp(const char *word)
{
    static const char *const host_lists[] = {"-Xcompiler=", "--compiler-options="};

    for (size_t k = 0; k < sizeof(host_lists) / sizeof(host_lists[0]); k++)
        if (strncmp(word, host_lists[k], strlen(host_lists[k])) == 0)
            word += strlen(host_lists[k]);
    /* "-fopenmp", "-fopenmp=libomp", and an item of "-O3,-fopenmp" or "-O3 -fopenmp". */
    for (const char *s = word; *s; s += strcspn(s, ", "), s += strspn(s, ", "))
        if (strncmp(s, "-fopenmp", 8) == 0 && strchr(", =", s[8]))
            return true;
    return false;
}

bool ks_flags_openmp(const char *const *words)
{
    for (size_t i = 0; words && words[i]; i++)
        if (word_openmp(words[i]))
            return true;
    return false;
}

const char *ks_flags_host_compiler(const char *const *words)
{
    static const char *const options[] = {"-ccbin", "--compiler-bindir"};

    for (size_t i = 0; words && words[i]; i++)
        for (size_t k = 0; k < sizeof(options) / sizeof(options[0]); k++) {
            const char *value = NULL;
            size_t used = 0;
            match(words[i], words[i + 1], options[k], false, &value, &used);
            if (used && value[0])
                return value;
        }
    return NULL;
}

static int absolute(char **out, const char *dir, const char *path)
{
    int n;

    if (path[0] == '/' || !dir || !dir[0])
        return (*out = strdup(path)) ? 0 : rpl_error_oom();
    n = snprintf(NULL, 0, "%s/%s", dir, path);
    if (n < 0 || !(*out = malloc((size_t)n + 1)))
        return rpl_error_oom();
    snprintf(*out, (size_t)n + 1, "%s/%s", dir, path);
    return 0;
}

int ks_flags_take(const char *const *words, const char *dir, ks_flags_sink add, void *ctx)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && words && words[i];) {
        const char *value = NULL;
        size_t used = 0, k;
        for (k = 0; k < sizeof(valued_options) / sizeof(valued_options[0]) && !used; k++)
            match(words[i], words[i + 1], valued_options[k].spelling, valued_options[k].joined,
                  &value, &used);
        if (!used || !value[0]) {
            i += used ? used : 1;
            continue;
        }
        const valued *v = &valued_options[k - 1];
        char *path = NULL;
        if (v->is_path && (rc = absolute(&path, dir, value)) != 0)
            return rc;
        if (strcmp(v->clang, "-std=") == 0)
            rc = add(ctx, "-std=", value);
        else if (strcmp(v->clang, "-I") == 0 || strcmp(v->clang, "-D") == 0 ||
                 strcmp(v->clang, "-U") == 0)
            rc = add(ctx, v->clang, path ? path : value);
        else if ((rc = add(ctx, v->clang, NULL)) == 0)
            rc = add(ctx, path ? path : value, NULL);
        free(path);
        i += used;
    }
    return rc;
}

typedef struct word_list {
    char **v;
    size_t n;
} word_list;

static int push_word(void *ctx, const char *prefix, const char *value)
{
    word_list *l = ctx;
    char **grown = realloc(l->v, (l->n + 2) * sizeof(*grown));
    int n;

    if (!grown)
        return rpl_error_oom();
    l->v = grown;
    n = snprintf(NULL, 0, "%s%s", prefix, value ? value : "");
    if (n < 0 || !(l->v[l->n] = malloc((size_t)n + 1)))
        return rpl_error_oom();
    snprintf(l->v[l->n], (size_t)n + 1, "%s%s", prefix, value ? value : "");
    l->v[++l->n] = NULL;
    return 0;
}

int rpl_ks_compile_flags(const char *const *words, const char *dir, char ***out)
{
    word_list l = {0};
    int rc = ks_flags_take(words, dir, push_word, &l);

    if (rc) {
        rpl_argv_free(l.v);
        return rc;
    }
    *out = l.v;
    return 0;
}
