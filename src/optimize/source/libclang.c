/*
 * Finding and loading libclang at run time (see libclang.h), and the clang
 * resource directory that matches the loaded version.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libclang.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"

#define LIBCLANG_ENV     "ROCM_PERF_LIBCLANG"
#define RESOURCE_DIR_ENV "ROCM_PERF_CLANG_RESOURCE_DIR"

#if defined(__aarch64__)
#define MULTIARCH_DIR "/usr/lib/aarch64-linux-gnu/"
#else
#define MULTIARCH_DIR "/usr/lib/x86_64-linux-gnu/"
#endif

/* One LLVM major version: the loader's search, the LLVM tree, the multiarch directory. */
#define CANDIDATES_FOR(n)                                                                          \
    "libclang-" #n ".so", "libclang-" #n ".so." #n, "libclang-" #n ".so.1",                        \
        "/usr/lib/llvm-" #n "/lib/libclang.so.1",                                                  \
        "/usr/lib/llvm-" #n "/lib/libclang-" #n ".so." #n, "/usr/lib/llvm-" #n "/lib/libclang.so", \
        MULTIARCH_DIR "libclang-" #n ".so." #n, MULTIARCH_DIR "libclang-" #n ".so.1",              \
        MULTIARCH_DIR "libclang-" #n ".so"

static const char *const default_candidates[] = {"libclang.so",      "libclang.so.1",
                                                 CANDIDATES_FOR(20), CANDIDATES_FOR(19),
                                                 CANDIDATES_FOR(18), CANDIDATES_FOR(17),
                                                 CANDIDATES_FOR(16), CANDIDATES_FOR(15),
                                                 CANDIDATES_FOR(14), NULL};

const char *const *rpl_libclang_default_candidates(void)
{
    return default_candidates;
}

char *rpl_libclang_take_string(const rpl_libclang *lc, CXString s)
{
    const char *c = lc->clang_getCString(s);
    char *copy = strdup(c ? c : "");

    lc->clang_disposeString(s);
    return copy;
}

/* A clang resource directory holds include/stddef.h (and the CUDA wrappers). */
static int is_resource_dir(const char *path)
{
    char probe[PATH_MAX];
    struct stat st;

    if (snprintf(probe, sizeof(probe), "%s/include/stddef.h", path) >= (int)sizeof(probe))
        return 0;
    return stat(probe, &st) == 0 && S_ISREG(st.st_mode);
}

/* "Debian clang version 15.0.6" -> "15.0.6" in `full`, 15 in *major. */
static void parse_version(const char *text, char *full, size_t size, unsigned *major)
{
    const char *p = strstr(text, "version ");

    full[0] = '\0';
    *major = 0;
    if (!p)
        return;
    p += strlen("version ");
    size_t n = strspn(p, "0123456789.");
    if (n == 0 || n >= size)
        return;
    memcpy(full, p, n);
    full[n] = '\0';
    *major = (unsigned)strtoul(full, NULL, 10);
}

/* The first candidate that is a resource directory, as a new string. */
static char *first_resource_dir(char cands[][PATH_MAX], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cands[i][0] && is_resource_dir(cands[i]))
            return strdup(cands[i]);
    return NULL;
}

/*
 * The resource directory for the loaded library: next to it (LLVM trees,
 * ROCm's llvm), else in Debian's and Ubuntu's LLVM tree, else /usr/lib/clang.
 * LLVM 16 and later name it by the major version only.
 */
static char *find_resource_dir(const char *lib_path, const char *full, unsigned major)
{
    char cands[6][PATH_MAX];
    const char *slash = strrchr(lib_path, '/');
    int libdir_len = slash ? (int)(slash - lib_path) : 0;

    memset(cands, 0, sizeof(cands));
    if (libdir_len > 0 && full[0]) {
        snprintf(cands[0], PATH_MAX, "%.*s/clang/%s", libdir_len, lib_path, full);
        snprintf(cands[1], PATH_MAX, "%.*s/clang/%u", libdir_len, lib_path, major);
    }
    if (major) {
        snprintf(cands[2], PATH_MAX, "/usr/lib/llvm-%u/lib/clang/%s", major, full);
        snprintf(cands[3], PATH_MAX, "/usr/lib/llvm-%u/lib/clang/%u", major, major);
        snprintf(cands[4], PATH_MAX, "/usr/lib/clang/%s", full);
        snprintf(cands[5], PATH_MAX, "/usr/lib/clang/%u", major);
    }
    return first_resource_dir(cands, sizeof(cands) / sizeof(cands[0]));
}

void rpl_libclang_release(rpl_libclang *lc)
{
    if (!lc)
        return;
    free(lc->path);
    free(lc->version);
    free(lc->resource_dir);
    free(lc);
}

/* Resolve every function of the table; the library stays loaded on success. */
static int bind_functions(rpl_libclang *lc, void *handle, const char *name)
{
    void *sym;

#define RPL_LIBCLANG_BIND(fn)                                                                      \
    sym = dlsym(handle, #fn);                                                                      \
    memcpy(&lc->fn, &sym, sizeof(sym));                                                            \
    if (!sym)                                                                                      \
        return rpl_error_set(RPL_EENV, "%s is not a usable libclang: it lacks %s", name, #fn);
    RPL_LIBCLANG_FUNCTIONS(RPL_LIBCLANG_BIND)
#undef RPL_LIBCLANG_BIND
    return 0;
}

/* Bind and describe a loaded library; *try_next when another candidate may do (a symbol
   this one lacks), not for a bad RESOURCE_DIR_ENV nor for no memory. */
static int finish_load(rpl_libclang *lc, void *handle, const char *name, bool *try_next)
{
    struct link_map *map = NULL;
    char real[PATH_MAX], full[32];
    const char *override = getenv(RESOURCE_DIR_ENV);
    int rc;

    *try_next = false;
    if ((rc = bind_functions(lc, handle, name)) != 0) {
        *try_next = rc == RPL_EENV;
        return rc;
    }
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0] &&
        realpath(map->l_name, real))
        lc->path = strdup(real);
    else
        lc->path = strdup(name);
    lc->version = rpl_libclang_take_string(lc, lc->clang_getClangVersion());
    if (!lc->path || !lc->version)
        return rpl_error_oom();
    parse_version(lc->version, full, sizeof(full), &lc->major);
    if (override && override[0]) {
        if (!is_resource_dir(override))
            return rpl_error_set(RPL_EENV,
                                 "%s=%s is not a clang resource directory (no include/stddef.h)",
                                 RESOURCE_DIR_ENV, override);
        lc->resource_dir = strdup(override);
        if (!lc->resource_dir)
            return rpl_error_oom();
    } else {
        lc->resource_dir = find_resource_dir(lc->path, full, lc->major);
    }
    rpl_log_debug("libclang: %s (%s), resource directory %s", lc->path, lc->version,
                  lc->resource_dir ? lc->resource_dir : "none");
    return 0;
}

int rpl_libclang_load_from(rpl_libclang **out, const char *const *candidates)
{
    char why[256] = "";
    const char *last = NULL;
    bool try_next;
    size_t n = 0;
    int rc;

    *out = NULL;
    for (; candidates[n]; n++) {
        void *handle = dlopen(candidates[n], RTLD_NOW | RTLD_LOCAL);
        rpl_libclang *lc;

        last = candidates[n];
        if (!handle) {
            const char *err = dlerror();
            snprintf(why, sizeof(why), "%s", err ? err : "cannot be loaded");
            continue;
        }
        lc = calloc(1, sizeof(*lc));
        if (!lc) {
            dlclose(handle);
            return rpl_error_oom();
        }
        if ((rc = finish_load(lc, handle, candidates[n], &try_next)) != 0) {
            /* A half-bound library must not be used: unload it and try the next. */
            rpl_libclang_release(lc);
            dlclose(handle);
            if (!try_next)
                return rc;
            snprintf(why, sizeof(why), "%s", rpl_error_last()->message);
            continue;
        }
        *out = lc;
        return 0;
    }
    if (n == 1)
        return rpl_error_set(RPL_EENV, "libclang could not be loaded from %s=%s (%s)", LIBCLANG_ENV,
                             last, why);
    return rpl_error_set(RPL_EENV,
                         "libclang was not found (tried %s ... %s); install libclang (the "
                         "libclang1-NN package) or set %s to the library's path",
                         n ? candidates[0] : "nothing", n ? last : "", LIBCLANG_ENV);
}

static rpl_libclang *loaded;
static int load_status;
static char load_message[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load_process_wide(void)
{
    const char *env = getenv(LIBCLANG_ENV);

    if (env && env[0]) {
        const char *one[] = {env, NULL};
        load_status = rpl_libclang_load_from(&loaded, one);
    } else {
        load_status = rpl_libclang_load_from(&loaded, default_candidates);
    }
    if (load_status != 0)
        snprintf(load_message, sizeof(load_message), "%s", rpl_error_last()->message);
}

int rpl_libclang_get(const rpl_libclang **out)
{
    pthread_once(&load_once, load_process_wide);
    if (load_status != 0) {
        *out = NULL;
        return rpl_error_set(load_status, "%s", load_message);
    }
    *out = loaded;
    return 0;
}
