/*
 * libclang, loaded at run time: the table of the C API functions the
 * kernel-source layer calls, and where the library and its resource
 * directory were found.
 *
 * rocm-perf links no libclang: the machines it runs on carry different
 * versions (Debian 12: 14 and 15, Ubuntu 24.04: 16-18) or none at all.  The
 * header of the build machine gives the prototypes; the C API is stable
 * across these versions for every function below.
 */
#ifndef RPL_KS_LIBCLANG_H
#define RPL_KS_LIBCLANG_H

#include <clang-c/Index.h>

#define RPL_LIBCLANG_FUNCTIONS(X)                                                                  \
    X(clang_createIndex)                                                                           \
    X(clang_disposeIndex)                                                                          \
    X(clang_parseTranslationUnit2)                                                                 \
    X(clang_disposeTranslationUnit)                                                                \
    X(clang_getTranslationUnitCursor)                                                              \
    X(clang_visitChildren)                                                                         \
    X(clang_getCursorKind)                                                                         \
    X(clang_getCursorSpelling)                                                                     \
    X(clang_getCString)                                                                            \
    X(clang_disposeString)                                                                         \
    X(clang_getCursorExtent)                                                                       \
    X(clang_getCursorLocation)                                                                     \
    X(clang_getRangeStart)                                                                         \
    X(clang_getRangeEnd)                                                                           \
    X(clang_getExpansionLocation)                                                                  \
    X(clang_getSpellingLocation)                                                                   \
    X(clang_Location_isInSystemHeader)                                                             \
    X(clang_isCursorDefinition)                                                                    \
    X(clang_Cursor_isNull)                                                                         \
    X(clang_getNullCursor)                                                                         \
    X(clang_equalCursors)                                                                          \
    X(clang_getCursorType)                                                                         \
    X(clang_getCanonicalType)                                                                      \
    X(clang_getTypeSpelling)                                                                       \
    X(clang_getNumArgTypes)                                                                        \
    X(clang_getArgType)                                                                            \
    X(clang_Cursor_getNumArguments)                                                                \
    X(clang_Cursor_getArgument)                                                                    \
    X(clang_Cursor_getMangling)                                                                    \
    X(clang_getSpecializedCursorTemplate)                                                          \
    X(clang_getCursorReferenced)                                                                   \
    X(clang_getCursorDefinition)                                                                   \
    X(clang_getNumOverloadedDecls)                                                                 \
    X(clang_getOverloadedDecl)                                                                     \
    X(clang_getCursorSemanticParent)                                                               \
    X(clang_Cursor_getStorageClass)                                                                \
    X(clang_getNumDiagnostics)                                                                     \
    X(clang_getDiagnostic)                                                                         \
    X(clang_disposeDiagnostic)                                                                     \
    X(clang_getDiagnosticSeverity)                                                                 \
    X(clang_getDiagnosticSpelling)                                                                 \
    X(clang_getDiagnosticLocation)                                                                 \
    X(clang_getFile)                                                                               \
    X(clang_getFileName)                                                                           \
    X(clang_getLocationForOffset)                                                                  \
    X(clang_getRange)                                                                              \
    X(clang_tokenize)                                                                              \
    X(clang_disposeTokens)                                                                         \
    X(clang_getTokenKind)                                                                          \
    X(clang_getTokenExtent)                                                                        \
    X(clang_Cursor_Evaluate)                                                                       \
    X(clang_EvalResult_getKind)                                                                    \
    X(clang_EvalResult_isUnsignedInt)                                                              \
    X(clang_EvalResult_getAsLongLong)                                                              \
    X(clang_EvalResult_getAsUnsigned)                                                              \
    X(clang_EvalResult_dispose)                                                                    \
    X(clang_getClangVersion)

typedef struct rpl_libclang {
#define RPL_LIBCLANG_MEMBER(name) __typeof__(&name) name;
    RPL_LIBCLANG_FUNCTIONS(RPL_LIBCLANG_MEMBER)
#undef RPL_LIBCLANG_MEMBER
    char *path;         /* the file that was loaded */
    char *version;      /* clang_getClangVersion(): "Debian clang version 15.0.6" */
    unsigned major;     /* 15 */
    char *resource_dir; /* NULL when none was found */
} rpl_libclang;

/*
 * The library, loaded on first use (thread-safe) and kept for the life of
 * the process.  RPL_EENV with a one-line message when no libclang can be
 * loaded.  The resource directory comes from ROCM_PERF_CLANG_RESOURCE_DIR,
 * else from the library's place and version; it may be NULL.
 */
int rpl_libclang_get(const rpl_libclang **out);

/*
 * Load from an explicit candidate list (NULL-terminated; names without '/'
 * go through the dynamic loader's search).  For the tests of the search:
 * a fresh table each call, released with rpl_libclang_release.
 */
int rpl_libclang_load_from(rpl_libclang **out, const char *const *candidates);
void rpl_libclang_release(rpl_libclang *lc);

/* The candidate names and paths tried when ROCM_PERF_LIBCLANG is unset (NULL-terminated). */
const char *const *rpl_libclang_default_candidates(void);

/* A CXString's text copied with strdup() and the CXString disposed; NULL on no memory. */
char *rpl_libclang_take_string(const rpl_libclang *lc, CXString s);

#endif
