/*
 * Options as data, in the manner of git's parse-options: a command's options
 * are one table of struct rpl_option that drives both the parsing of its
 * arguments and its --help text.  An entry names a field of the command's
 * options struct by offset (RPL_FIELD), so a table is static data and one
 * parser fills any struct.  Every command also takes -v/--verbose
 * (repeatable), -q/--quiet and -h/--help.
 *
 * Long options take "--opt=value" or "--opt value" and may be shortened to
 * an unambiguous prefix; short ones "-k value", "-kvalue" and bundles
 * ("-vv").  "--" ends the options.  A bad command line is one line on stderr,
 * "rocm-perf: ...", and exit code 2.
 */
#ifndef RPL_PARSE_OPTIONS_H
#define RPL_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum rpl_opt_type {
    RPL_OPT_END,
    RPL_OPT_GROUP,       /* a heading in --help */
    RPL_OPT_INCLUDE,     /* the entries of another table, in place */
    RPL_OPT_BOOL,        /* bool = true */
    RPL_OPT_COUNT,       /* unsigned, one more per use (-vv) */
    RPL_OPT_UINT,        /* whole number in [lo, hi]: unsigned, unsigned long, uint64_t */
    RPL_OPT_NUMBER,      /* real number in [lo, hi] (open: RPL_OPT_OPEN): double */
    RPL_OPT_FRACTION,    /* a number or a percentage ("3%" is 0.03): double */
    RPL_OPT_DURATION,    /* seconds, or 500ms, 2m, 1h: double seconds or int milliseconds */
    RPL_OPT_SIZE,        /* bytes, or 64k, 1M, 1G (powers of 1024): unsigned */
    RPL_OPT_STRING,      /* const char * */
    RPL_OPT_STRING_LIST, /* repeatable: const char *array[N] or a grown const char ** */
    RPL_OPT_CALLBACK,    /* the entry's function does the work */
} rpl_opt_type;

/* Entry flags. */
#define RPL_OPT_OPEN     0x1u /* NUMBER, FRACTION: lo and hi themselves are out of range */
#define RPL_OPT_WORDS    0x2u /* STRING_LIST: also takes the words after it, up to an option */
#define RPL_OPT_NONEMPTY 0x4u /* STRING, STRING_LIST: "" is refused */
#define RPL_OPT_NEGATE   0x8u /* BOOL: sets false (--no-...) */

/* Command flags. */
#define RPL_PARSE_STOP_AT_ARG   0x1u /* options end at the first other argument (APP ARGS...) */
#define RPL_PARSE_KEEP_DASHDASH 0x2u /* "--" stays among the arguments left */
/*
 * With STOP_AT_ARG: the arguments left are a program and its own arguments
 * ("--" before them is dropped), and without "--" the command's long options
 * may also end the line after them ("rocm-perf profile ./app --json") when
 * the program's arguments before them hold no option; a short option there
 * is the program's until one of the command's long options has begun the
 * run.  The words left end at the program's last argument (NULL put there).
 */
#define RPL_PARSE_TRAILING 0x4u

struct rpl_option;

/* 0 done, else the exit code (the message printed). `base` is the command's options struct. */
typedef int rpl_option_fn(void *base, const struct rpl_option *opt, const char *arg);

typedef struct rpl_option {
    rpl_opt_type type;
    int short_name;
    const char *long_name;
    size_t offset, size; /* the field the value goes to */
    const char *argh;    /* the value's name in --help: "N", "FILE" */
    const char *help;    /* "{}" stands for the field's value before parsing (its default) */
    unsigned flags;
    double lo, hi; /* the range of numbers; 0, 0: any whole number */
    size_t count;  /* STRING_LIST: offset of its size_t count */
    size_t seen;   /* offset + 1 of a bool set when the option is given (0: none) */
    rpl_option_fn *fn;
    const struct rpl_option *include;
} rpl_option;

/* A number macro as text, for a default in a help string. */
#define RPL_STRINGIFY_(x) #x
#define RPL_STRINGIFY(x)  RPL_STRINGIFY_(x)

/* The field `m` of options struct `T`. */
#define RPL_FIELD(T, m) .offset = offsetof(T, m), .size = sizeof(((T *)0)->m)
#define RPL_SEEN(T, m)  .seen = offsetof(T, m) + 1

/*
 * An entry; the OPT_* macros below give the arguments each type takes.  The
 * field comes last: RPL_FIELD expands to two designators.
 */
#define RPL_OPTION(t, s, l, lo_, hi_, fl, a, h, ...)                                               \
    {                                                                                              \
        .type = (t), .short_name = (s), .long_name = (l), .lo = (lo_), .hi = (hi_), .flags = (fl), \
        .argh = (a), .help = (h), __VA_ARGS__                                                      \
    }

#define OPT_END()                                                                                  \
    {                                                                                              \
        .type = RPL_OPT_END                                                                        \
    }
#define OPT_GROUP(title)                                                                           \
    {                                                                                              \
        .type = RPL_OPT_GROUP, .help = (title)                                                     \
    }
#define OPT_INCLUDE(table)                                                                         \
    {                                                                                              \
        .type = RPL_OPT_INCLUDE, .include = (table)                                                \
    }
#define OPT_BOOL(s, l, f, h)      RPL_OPTION(RPL_OPT_BOOL, s, l, 0, 0, 0, NULL, h, f)
#define OPT_NEGBOOL(s, l, f, h)   RPL_OPTION(RPL_OPT_BOOL, s, l, 0, 0, RPL_OPT_NEGATE, NULL, h, f)
#define OPT_COUNT(s, l, f, h)     RPL_OPTION(RPL_OPT_COUNT, s, l, 0, 0, 0, NULL, h, f)
#define OPT_STRING(s, l, f, a, h) RPL_OPTION(RPL_OPT_STRING, s, l, 0, 0, 0, a, h, f)
#define OPT_FILENAME(s, l, f, a, h)                                                                \
    RPL_OPTION(RPL_OPT_STRING, s, l, 0, 0, RPL_OPT_NONEMPTY, a, h, f)
#define OPT_UINT(s, l, f, lo, hi, a, h)   RPL_OPTION(RPL_OPT_UINT, s, l, lo, hi, 0, a, h, f)
#define OPT_NUMBER(s, l, f, lo, hi, a, h) RPL_OPTION(RPL_OPT_NUMBER, s, l, lo, hi, 0, a, h, f)
/* The same, also setting the bool `seen` (RPL_SEEN) when given. */
#define OPT_UINT_SEEN(s, l, f, seen, lo, hi, a, h)                                                 \
    RPL_OPTION(RPL_OPT_UINT, s, l, lo, hi, 0, a, h, f, seen)
#define OPT_NUMBER_SEEN(s, l, f, seen, lo, hi, a, h)                                               \
    RPL_OPTION(RPL_OPT_NUMBER, s, l, lo, hi, 0, a, h, f, seen)
#define OPT_NUMBER_OPEN(s, l, f, lo, hi, a, h)                                                     \
    RPL_OPTION(RPL_OPT_NUMBER, s, l, lo, hi, RPL_OPT_OPEN, a, h, f)
#define OPT_FRACTION(s, l, f, lo, hi, a, h)                                                        \
    RPL_OPTION(RPL_OPT_FRACTION, s, l, lo, hi, RPL_OPT_OPEN, a, h, f)
#define OPT_DURATION(s, l, f, lo, hi, a, h) RPL_OPTION(RPL_OPT_DURATION, s, l, lo, hi, 0, a, h, f)
#define OPT_SIZE(s, l, f, lo, hi, a, h)     RPL_OPTION(RPL_OPT_SIZE, s, l, lo, hi, 0, a, h, f)
/* A list's count is the offset of its size_t (offsetof); _WORDS also takes the words after it. */
#define OPT_STRING_LIST(s, l, f, n, a, h)                                                          \
    RPL_OPTION(RPL_OPT_STRING_LIST, s, l, 0, 0, 0, a, h, f, .count = (n))
#define OPT_STRING_WORDS(s, l, f, n, a, h)                                                         \
    RPL_OPTION(RPL_OPT_STRING_LIST, s, l, 0, 0, RPL_OPT_WORDS, a, h, f, .count = (n))
/* `f` here is the field handed to `fn` (RPL_FIELD), or RPL_WHOLE_STRUCT. */
#define OPT_CALLBACK(s, l, f, fn_, a, h)                                                           \
    RPL_OPTION(RPL_OPT_CALLBACK, s, l, 0, 0, 0, a, h, f, .fn = (fn_))
#define RPL_WHOLE_STRUCT .offset = 0, .size = 0

/* A command: its options and the text of its --help around them. */
typedef struct rpl_command {
    const char *name;        /* "gate", "baseline trend": in messages */
    const char *usage;       /* the usage lines, after "usage: " (lines after the first indented) */
    const char *description; /* paragraphs after the usage, as written */
    const rpl_option *options;
    const char *notes;      /* paragraphs after the options, as written (or NULL) */
    const char *exit_codes; /* after "Exit codes: ", as written */
    unsigned flags;         /* RPL_PARSE_* */
    /* Options of another command, refused here by naming it ("'--junit' is an option of
     * 'rocm-perf gate', not of 'baseline update'"). */
    const rpl_option *foreign;
    const char *foreign_name;
} rpl_command;

/*
 * Parse `*argc` words from (*argv)[1] on into the fields of `base`.  Returns
 * -1 when parsed, with *argv and *argc the arguments left (not options);
 * else the exit code to leave with: 0 after --help (printed on stdout), 2
 * for a bad command line, 3 out of memory (the message printed).
 */
int rpl_parse_options(const rpl_command *cmd, void *base, int *argc, char ***argv);

/* The --help text of `cmd`, its defaults read from `base` (the struct before parsing). */
void rpl_parse_options_usage(const rpl_command *cmd, const void *base, FILE *out);

/*
 * The one number parser: `arg` as option `opt`'s type (UINT, NUMBER,
 * FRACTION, DURATION in seconds, SIZE in bytes) and range.  0, or exit code
 * 2 with the message printed.
 */
int rpl_parse_number(const rpl_option *opt, const char *arg, double *out);

/* -v (one log level more) or -q (errors only), at once: "-q -v" is warnings. */
void rpl_cli_log_option(int c);

/* Print "rocm-perf: <message>" for a usage error and return exit code 2. */
int rpl_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Report the last library error as "rocm-perf: <message>" on stderr and
 * return the exit code for `status`.
 */
int rpl_cli_fail(int status);

/*
 * An output file named by option `opt` can be written later: its folder
 * exists and it is not itself a folder.  Else a usage error (exit 2), so
 * that a long run does not end on a path that never worked.
 */
int rpl_cli_check_output(const char *opt, const char *path);

#endif
