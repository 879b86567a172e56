/* Commit messages and trailers: format, refuse, parse back (rpl/optgit.h). */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gitfix.h"
#include "rpl/error.h"
#include "rpl/optgit.h"

#define ROOT RPL_TEST_TMP "/optgit_message"
#define REPO ROOT "/repo"

static const rpl_trailer full_trailers[] = {
    {RPL_TRAILER_SPEEDUP, "1.14"},
    {RPL_TRAILER_CI95, "1.12-1.16"},
    {RPL_TRAILER_CORRECTNESS, "replay 3/3 regions equal; 5/5 seeds, maxabs=3e-6"},
    {RPL_TRAILER_BASELINE, "0123456789abcdef0123456789abcdef01234567"},
    {RPL_TRAILER_SNAPSHOT,
     "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
    {RPL_TRAILER_TOOL, "rocm-perf 0.9.0"},
    {RPL_TRAILER_MODEL, "none"},
};

static const char *const table = "| metric | original | candidate |\n"
                                 "|--------|----------|-----------|\n"
                                 "| median | 1.234 ms | 1.082 ms  |\n";

static rpl_commit_msg example(void)
{
    rpl_commit_msg m = {
        .kernel = "gemm",
        .strategy = "unroll x4",
        .time_change_pct = -12.34,
        .ci_half_pct = 0.81,
        .body = table,
        .trailers = full_trailers,
        .n_trailers = sizeof(full_trailers) / sizeof(full_trailers[0]),
    };
    return m;
}

static void formats_subject_body_and_trailers(void **state)
{
    rpl_commit_msg m = example();
    char *msg;

    (void)state;
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_string_equal(msg,
                        "perf(gemm): unroll x4 (-12.3% \xc2\xb1"
                        "0.8%)\n"
                        "\n"
                        "| metric | original | candidate |\n"
                        "|--------|----------|-----------|\n"
                        "| median | 1.234 ms | 1.082 ms  |\n"
                        "\n"
                        "Rocm-Perf-Speedup: 1.14\n"
                        "Rocm-Perf-CI95: 1.12-1.16\n"
                        "Rocm-Perf-Correctness: replay 3/3 regions equal; 5/5 seeds, maxabs=3e-6\n"
                        "Rocm-Perf-Baseline: 0123456789abcdef0123456789abcdef01234567\n"
                        "Rocm-Perf-Snapshot: "
                        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
                        "Rocm-Perf-Tool: rocm-perf 0.9.0\n"
                        "Rocm-Perf-Model: none\n");
    free(msg);
}

static void subject_variants(void **state)
{
    rpl_commit_msg m = {.kernel = "k", .strategy = "s", .time_change_pct = 3.04};
    char *msg;

    (void)state;
    m.ci_half_pct = -1;
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_string_equal(msg, "perf(k): s (+3.0%)\n");
    free(msg);
    m.ci_half_pct = NAN;
    m.time_change_pct = -0.5;
    m.body = "\n\nfree text\n\n\n";
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_string_equal(msg, "perf(k): s (-0.5%)\n\nfree text\n");
    free(msg);
}

/* Characters of the first line (UTF-8). */
static size_t subject_chars(const char *msg)
{
    size_t n = 0;

    for (const char *p = msg; *p && *p != '\n'; p++)
        n += ((unsigned char)*p & 0xc0) != 0x80;
    return n;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void long_subjects_are_cut_at_a_word(void **state)
{
    static const char strategy[] =
        "stage both input tiles in shared memory so that both the global loads and the "
        "stores coalesce, then unroll the inner product by four";
    rpl_commit_msg m = {.kernel = "matrix_multiplication_kernel<16>",
                        .strategy = strategy,
                        .time_change_pct = -85.5,
                        .ci_half_pct = 0.04};
    char *msg, *nl;

    (void)state;
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_true(subject_chars(msg) <= RPL_COMMIT_SUBJECT_MAX);
    nl = strchr(msg, '\n');
    assert_non_null(nl);
    /* The subject ends with the cut strategy, "..." and the result; the cut is at a word. */
    assert_true(starts_with(msg, "perf(matrix_multiplication_kernel<16>): stage both"));
    assert_non_null(strstr(msg, "... (-85.5% \xc2\xb1"
                                "0.0%)\n"));
    const char *dots = strstr(msg, "...");
    assert_true(dots < nl && dots[-1] != ' ' && strchr(strategy, dots[-1]));
    size_t kept = (size_t)(dots - msg) - strlen("perf(matrix_multiplication_kernel<16>): ");
    assert_true(strategy[kept] == ' ' || strategy[kept] == ',');
    /* The whole strategy opens the body. */
    assert_non_null(strstr(nl, strategy));
    free(msg);

    /* A kernel name that leaves no room: "perf: ", the kernel and strategy in the body. */
    m.kernel = "void very_long_namespace::detail::tiled_matrix_product_kernel<float, 128u, 8u>"
               "(float const*, float const*, float*, unsigned int)";
    m.strategy = "unroll x4";
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_true(subject_chars(msg) <= RPL_COMMIT_SUBJECT_MAX);
    assert_true(starts_with(msg, "perf: unroll x4 (-85.5%"));
    assert_non_null(strstr(msg, "\n\nKernel void very_long_namespace::"));
    free(msg);

    /* One word longer than the room is cut at a character, never inside a UTF-8 sequence. */
    m.kernel = "k";
    m.strategy = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_true(subject_chars(msg) == RPL_COMMIT_SUBJECT_MAX);
    assert_non_null(strstr(msg, "\xc3\xa9..."));
    free(msg);
}

static void assert_refused(const rpl_commit_msg *m, const char *needle)
{
    char *msg = (char *)1;

    assert_int_equal(rpl_commit_msg_format(m, &msg), RPL_EINPUT);
    assert_null(msg);
    if (!strstr(rpl_error_last()->message, needle))
        fail_msg("error '%s' does not mention '%s'", rpl_error_last()->message, needle);
}

static void refuses_what_would_break_the_message(void **state)
{
    rpl_trailer t = {"Rocm-Perf-Speedup", "1.1"};
    rpl_commit_msg m = {.kernel = "k", .strategy = "s", .trailers = &t, .n_trailers = 1};

    (void)state;
    m.kernel = "k\nSigned-off-by: x";
    assert_refused(&m, "kernel name");
    m.kernel = "k";
    m.strategy = "";
    assert_refused(&m, "strategy is empty");
    m.strategy = "s\r";
    assert_refused(&m, "line break");
    m.strategy = "s";
    t.value = "1.1\nRocm-Perf-CI95: 9-9";
    assert_refused(&m, "Rocm-Perf-Speedup");
    t.value = "";
    assert_refused(&m, "empty");
    t.value = " 1.1";
    assert_refused(&m, "blank");
    t.value = "1.1";
    t.key = "Rocm Perf";
    assert_refused(&m, "not letters");
    t.key = "Key:";
    assert_refused(&m, "not letters");
    t.key = "";
    assert_refused(&m, "trailer key");
    t.key = "Rocm-Perf-Speedup";
    m.body = "table\n---\nmore";
    assert_refused(&m, "line 2 starts with '---'");
    /* Found by fuzz_commit_msg: without trailers, a body ending in "Key: value" lines. */
    m.n_trailers = 0;
    m.body = "measured on gfx942\n\nReviewed-by: someone";
    assert_refused(&m, "would not read the trailers back");
    m.n_trailers = 1;
    m.body = NULL;
    m.time_change_pct = NAN;
    assert_refused(&m, "not a number");
}

static void trailers_parse_back_exactly(void **state)
{
    rpl_commit_msg m = example();
    rpl_trailers *t;
    char *msg;

    (void)state;
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_int_equal(rpl_trailers_parse(&t, msg), 0);
    assert_int_equal(t->count, m.n_trailers);
    for (size_t i = 0; i < t->count; i++) {
        assert_string_equal(t->items[i].key, full_trailers[i].key);
        assert_string_equal(t->items[i].value, full_trailers[i].value);
    }
    assert_string_equal(rpl_trailers_get(t, "rocm-perf-speedup"), "1.14");
    assert_string_equal(rpl_trailers_get(t, RPL_TRAILER_SNAPSHOT), full_trailers[4].value);
    assert_null(rpl_trailers_get(t, "Rocm-Perf-Iteration"));
    rpl_trailers_free(t);
    free(msg);

    /* No trailers: none come back, the body's table is not taken for any. */
    m.n_trailers = 0;
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_int_equal(rpl_trailers_parse(&t, msg), 0);
    assert_int_equal(t->count, 0);
    rpl_trailers_free(t);
    free(msg);
}

static void trailers_survive_a_real_commit(void **state)
{
    rpl_commit_msg m = example();
    rpl_optbranch_opts o = {.stamp = 1700000000};
    const rpl_git_file f = {"src/kernel.hip", "faster\n", 7};
    rpl_git_commit_id id;
    rpl_git_repo *repo;
    rpl_optbranch *b;
    rpl_trailers *t;
    char *msg, *back, *git_view;

    (void)state;
    gitfix_env(ROOT);
    gitfix_repo(REPO);
    assert_int_equal(rpl_commit_msg_format(&m, &msg), 0);
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &f, 1, msg, &id), 0);
    assert_int_equal(rpl_git_commit_message(repo, id.hex, &back), 0);
    assert_string_equal(back, msg);
    assert_int_equal(rpl_trailers_parse(&t, back), 0);
    assert_int_equal(t->count, m.n_trailers);
    assert_string_equal(rpl_trailers_get(t, RPL_TRAILER_CI95), "1.12-1.16");
    rpl_trailers_free(t);
    /* git itself reads the same trailers (the documented `git log --format=%(trailers)`). */
    git_view = gitfix_git(REPO, "log", "-1", "--format=%(trailers:key=Rocm-Perf-Speedup)",
                          rpl_optbranch_name(b), NULL);
    assert_string_equal(git_view, "Rocm-Perf-Speedup: 1.14\n\n");
    free(git_view);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    rpl_git_repo_free(repo);
    free(back);
    free(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formats_subject_body_and_trailers),
        cmocka_unit_test(subject_variants),
        cmocka_unit_test(long_subjects_are_cut_at_a_word),
        cmocka_unit_test(refuses_what_would_break_the_message),
        cmocka_unit_test(trailers_parse_back_exactly),
        cmocka_unit_test(trailers_survive_a_real_commit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
