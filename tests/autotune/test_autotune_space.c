/*
 * Search spaces and templates: value lists, ranges and powers of two,
 * constraint filtering, malformed spaces; template splitting, quoting and
 * placeholders; the space-filling sample (determinism for a seed, coverage,
 * extension around taken points).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

static rpl_tune_space *parse_ok(const char *text)
{
    rpl_tune_space *s = NULL;
    int rc = rpl_tune_space_parse(&s, text, strlen(text), "space.json");

    if (rc != 0)
        fail_msg("parse failed: %s", rpl_error_last()->message);
    return s;
}

static void rejects(const char *text, const char *part)
{
    rpl_tune_space *s = NULL;

    assert_int_equal(rpl_tune_space_parse(&s, text, strlen(text), "space.json"), RPL_EINPUT);
    assert_null(s);
    if (!strstr(rpl_error_last()->message, part))
        fail_msg("message '%s' lacks '%s'", rpl_error_last()->message, part);
}

static void expansion(void **state)
{
    rpl_tune_space *s =
        parse_ok("{\"schema_version\": \"1.0\", \"name\": \"t\", \"parameters\": ["
                 "{\"name\": \"BM\", \"powers_of_two\": {\"min\": 16, \"max\": 128}},"
                 "{\"name\": \"TM\", \"range\": {\"start\": 1, \"stop\": 4}},"
                 "{\"name\": \"X\", \"values\": [0.5, 3]},"
                 "{\"name\": \"S\", \"range\": {\"start\": 0, \"stop\": 1, \"step\": 0.25}}],"
                 "\"constraints\": [\"BM % TM == 0\", \"BM * X <= 192\"]}");

    (void)state;
    assert_string_equal(s->name, "t");
    assert_int_equal(s->nparams, 4);
    assert_int_equal(s->params[0].nvalues, 4); /* 16 32 64 128 */
    assert_true(s->params[0].values[3] == 128 && s->params[0].log2);
    assert_int_equal(s->params[1].nvalues, 4); /* stop included */
    assert_false(s->params[1].log2);           /* 3 is no power of two */
    assert_int_equal(s->params[3].nvalues, 5); /* 0 0.25 0.5 0.75 1 */
    assert_true(s->params[3].values[4] == 1);
    assert_int_equal(s->total, 4 * 4 * 2 * 5);
    /* Count by hand: BM % TM == 0 drops TM=3 always; BM * X <= 192 drops X=3 for BM >= 128. */
    {
        size_t want = 0;
        for (int bm = 16; bm <= 128; bm *= 2)
            for (int tm = 1; tm <= 4; tm++)
                for (int x = 0; x < 2; x++)
                    want += (bm % tm == 0 && bm * (x ? 3.0 : 0.5) <= 192) * 5;
        assert_int_equal(s->nconfigs, want);
    }
    /* Odometer order: the last parameter fastest; every kept config satisfies both. */
    for (size_t c = 0; c < s->nconfigs; c++) {
        double bm = rpl_tune_space_value(s, c, 0), tm = rpl_tune_space_value(s, c, 1);
        assert_true(fmod(bm, tm) == 0 && bm * rpl_tune_space_value(s, c, 2) <= 192);
    }
    assert_true(rpl_tune_space_value(s, 0, 3) == 0 && rpl_tune_space_value(s, 1, 3) == 0.25);
    {
        char buf[128], v[32];
        double vals[4] = {64, 2, 0.5, 0.75};
        rpl_tune_space_describe(buf, sizeof(buf), s, vals);
        assert_string_equal(buf, "BM=64 TM=2 X=0.5 S=0.75");
        rpl_tune_value_text(v, sizeof(v), 1e3);
        assert_string_equal(v, "1000");
    }
    rpl_tune_space_free(s);
}

static void malformed(void **state)
{
    (void)state;
    rejects("{\"schema_version\": \"1.0\", \"parameters\": [", "malformed JSON");
    rejects("{\"parameters\": [{\"name\": \"A\", \"values\": [1]}]}", "'schema_version'");
    rejects("{\"schema_version\": \"2.0\", \"parameters\": [{\"name\": \"A\", \"values\": [1]}]}",
            "schema_version '2.0'");
    rejects("{\"schema_version\": \"1.0\", \"parameters\": []}", "non-empty array");
    rejects("{\"schema_version\": \"1.0\", \"contraints\": [], \"parameters\": [{\"name\": \"A\", "
            "\"values\": [1]}]}",
            "unknown key contraints");
    rejects("{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"1A\", \"values\": [1]}]}",
            "parameters[0]: 'name'");
    rejects("{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"OUT\", \"values\": [1]}]}",
            "OUT is the placeholder");
    rejects("{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"values\": [1]}, "
            "{\"name\": \"A\", \"values\": [2]}]}",
            "parameters[1] ('A'): the name is used twice");
    rejects(
        "{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"values\": [1, 1]}]}",
        "lists a value twice");
    rejects("{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"values\": [1], "
            "\"range\": {\"start\": 1, \"stop\": 2}}]}",
            "exactly one of");
    rejects("{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"range\": "
            "{\"start\": 3, \"stop\": 2}}]}",
            "start <= stop");
    rejects("{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"range\": "
            "{\"start\": 0, \"stop\": 1e9}}]}",
            "more than 1024 values");
    rejects("{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"powers_of_two\": "
            "{\"min\": 3, \"max\": 8}}]}",
            "powers of two");
    rejects(
        "{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"values\": [1, 2]}], "
        "\"constraints\": [\"A >\"]}",
        "constraints[0]: expression 'A >': at position 4");
    rejects(
        "{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"values\": [1, 2]}], "
        "\"constraints\": [\"B > 1\"]}",
        "unknown parameter 'B'");
    rejects(
        "{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"values\": [1, 2]}], "
        "\"constraints\": [\"A > 5\"]}",
        "no configuration of the 2 satisfies the constraints");
    rejects(
        "{\"schema_version\": \"1.0\", \"parameters\": [{\"name\": \"A\", \"values\": [0, 2]}], "
        "\"constraints\": [\"4 / A > 1\"]}",
        "at A=0: expression '4 / A > 1': at position 3: division by zero");
}

static void words(void **state)
{
    char **w = NULL;
    size_t n = 0;

    (void)state;
    assert_int_equal(
        rpl_words_split(&w, &n, "  cc -DX='a b' \"q\\\"x\\\\\" it\\'s '' $HOME *.c 'a'\"b\"", "t"),
        0);
    assert_int_equal(n, 8);
    assert_string_equal(w[0], "cc");
    assert_string_equal(w[1], "-DX=a b");
    assert_string_equal(w[2], "q\"x\\");
    assert_string_equal(w[3], "it's");
    assert_string_equal(w[4], "");      /* an empty argument */
    assert_string_equal(w[5], "$HOME"); /* no variables */
    assert_string_equal(w[6], "*.c");   /* no globs */
    assert_string_equal(w[7], "ab");
    assert_null(w[8]);
    rpl_argv_free(w);
    assert_int_equal(rpl_words_split(&w, &n, "a 'b", "--cmd-template"), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "single quote at position 3"));
    assert_int_equal(rpl_words_split(&w, &n, "a \"b", "t"), RPL_EUSAGE);
    assert_int_equal(rpl_words_split(&w, &n, "a\\", "t"), RPL_EUSAGE);
    assert_int_equal(rpl_words_split(&w, &n, "   ", "--launcher"), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "--launcher holds no command"));
}

static void templates(void **state)
{
    static const char *const names[] = {"BM", "BN", "OUT"};
    static const char *const values[] = {"64", "32", "/w/b 1/prog"};
    rpl_template *t = NULL;
    char **argv = NULL;

    (void)state;
    /* Split before substitution: a value with a space stays one word. */
    assert_int_equal(
        rpl_template_parse(&t, "{OUT} --tile '{BM}x{BN}' -DB={BN} {{lit}}", "t", names, 3), 0);
    assert_true(t->used == 7);
    assert_int_equal(rpl_template_expand(&argv, t, names, values, 3), 0);
    assert_string_equal(argv[0], "/w/b 1/prog");
    assert_string_equal(argv[1], "--tile");
    assert_string_equal(argv[2], "64x32");
    assert_string_equal(argv[3], "-DB=32");
    assert_string_equal(argv[4], "{lit}");
    assert_null(argv[5]);
    rpl_argv_free(argv);
    rpl_template_free(t);
    assert_int_equal(rpl_template_parse(&t, "./k --bm {BMX}", "--cmd-template", names, 2),
                     RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message,
                        "--cmd-template: unknown placeholder '{BMX}' (known: BM, BN)");
    assert_int_equal(rpl_template_parse(&t, "./k {BM", "t", names, 2), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "'{' without '}'"));
    assert_int_equal(rpl_template_parse(&t, "./k BM}", "t", names, 2), RPL_EUSAGE);
    assert_null(t);
}

static rpl_tune_space *grid(void)
{
    /* 8 x 8 x 4 = 256 configs, 128 after the constraint. */
    return parse_ok("{\"schema_version\": \"1.0\", \"parameters\": ["
                    "{\"name\": \"A\", \"range\": {\"start\": 0, \"stop\": 7}},"
                    "{\"name\": \"B\", \"range\": {\"start\": 0, \"stop\": 7}},"
                    "{\"name\": \"C\", \"values\": [1, 2, 4, 8]}],"
                    "\"constraints\": [\"(A + B) % 2 == 0\"]}");
}

static void sampling(void **state)
{
    rpl_tune_space *s = grid();
    size_t n = s->nconfigs, *cand = malloc(n * sizeof(*cand)), a[16], b[16], c[16], na, nb, nc;
    bool seen_a[8] = {false}, seen_c[4] = {false};
    size_t la = 0, lc = 0;

    (void)state;
    assert_int_equal(n, 128);
    for (size_t i = 0; i < n; i++)
        cand[i] = i;
    assert_int_equal(rpl_tune_sample(a, &na, 16, s, cand, n, NULL, 0, 42), 0);
    assert_int_equal(rpl_tune_sample(b, &nb, 16, s, cand, n, NULL, 0, 42), 0);
    assert_int_equal(rpl_tune_sample(c, &nc, 16, s, cand, n, NULL, 0, 43), 0);
    assert_int_equal(na, 16);
    assert_memory_equal(a, b, sizeof(a)); /* the same seed, the same sample */
    assert_memory_not_equal(a, c, sizeof(a));
    for (size_t i = 0; i < na; i++) {
        assert_true(i == 0 || a[i] > a[i - 1]); /* sorted, distinct */
        seen_a[s->levels[a[i] * 3 + 0]] = true;
        seen_c[s->levels[a[i] * 3 + 2]] = true;
    }
    /* Latin-hypercube coverage: 16 points over 8 levels of A and 4 of C meet every level. */
    for (size_t i = 0; i < 8; i++)
        la += seen_a[i];
    for (size_t i = 0; i < 4; i++)
        lc += seen_c[i];
    assert_int_equal(la, 8);
    assert_int_equal(lc, 4);
    /* Extension away from taken points: with every A=0 config taken, one more point lands far. */
    {
        size_t taken[64], rest[128], nt = 0, nr = 0;
        for (size_t i = 0; i < n; i++) {
            if (s->levels[i * 3] == 0)
                taken[nt++] = i;
            else
                rest[nr++] = i;
        }
        assert_int_equal(rpl_tune_sample(b, &nb, 1, s, rest, nr, taken, nt, 7), 0);
        assert_int_equal(nb, 1);
        assert_true(s->levels[b[0] * 3] >= 5);
    }
    assert_int_equal(rpl_tune_sample(c, &nc, 20, s, cand + 120, 8, NULL, 0, 7), 0);
    assert_int_equal(nc, 8);
    assert_int_equal(c[0], 120);
    free(cand);
    rpl_tune_space_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expansion), cmocka_unit_test(malformed), cmocka_unit_test(words),
        cmocka_unit_test(templates), cmocka_unit_test(sampling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
