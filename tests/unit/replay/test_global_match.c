/*
 * Module globals of a candidate matched to the snapshot's (global_match.h),
 * on cubins nvcc 13 built from a CCCL-using source and from an edited copy
 * of it (tests/replay/fixtures/build.sh): the names hold the translation
 * unit's hash, which differs between the two.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "global_match.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"

#define FX RPL_REPLAY_FIXTURES

static rpl_codeobj_set *read_set(const char *path)
{
    rpl_codeobj_set *set = NULL;

    assert_int_equal(rpl_codeobj_set_new(&set), 0);
    assert_int_equal(rpl_codeobj_read_file(set, path), 0);
    return set;
}

static const char *const *names(const rpl_codeobj_set *set)
{
    return (const char *const *)set->globals;
}

/* The index of the global whose name holds `part`; it must be there once. */
static size_t global_with(const rpl_codeobj_set *set, const char *part)
{
    size_t at = set->n_globals;

    for (size_t i = 0; i < set->n_globals; i++)
        if (strstr(set->globals[i], part)) {
            assert_int_equal(at, set->n_globals);
            at = i;
        }
    assert_true(at < set->n_globals);
    return at;
}

/* The cubin reader lists the device variables, not the toolkit's "." symbols. */
static void test_globals_listed(void **state)
{
    rpl_codeobj_set *set = read_set(FX "/tu_globals_sm90.cubin");

    (void)state;
    assert_int_equal(set->count, 1);
    assert_true(set->n_globals >= 2);
    for (size_t i = 0; i < set->n_globals; i++) {
        assert_true(set->globals[i][0] != '.');
        assert_non_null(strstr(set->globals[i], "_INTERNAL_"));
    }
    global_with(set, "10warps_doneE");
    global_with(set, "6ignoreE");
    rpl_codeobj_set_free(set);
}

/* Every global of the original is found, once, in the edited copy, under another name. */
static void test_edited_copy_matches(void **state)
{
    rpl_codeobj_set *orig = read_set(FX "/tu_globals_sm90.cubin");
    rpl_codeobj_set *cand = read_set(FX "/tu_globals_edited_sm90.cubin");

    (void)state;
    assert_int_equal(orig->n_globals, cand->n_globals);
    for (size_t i = 0; i < orig->n_globals; i++) {
        size_t at = cand->n_globals;

        assert_int_equal(rpl_global_match(orig->globals[i], names(cand), cand->n_globals, &at), 0);
        assert_true(at < cand->n_globals);
        assert_string_not_equal(orig->globals[i], cand->globals[at]);
        assert_int_equal(strlen(orig->globals[i]), strlen(cand->globals[at]));
    }
    /* The anonymous namespace's own variable maps to its twin, not to a CCCL object. */
    {
        size_t want = global_with(cand, "10warps_doneE"), at = cand->n_globals;

        assert_int_equal(rpl_global_match(orig->globals[global_with(orig, "10warps_doneE")],
                                          names(cand), cand->n_globals, &at),
                         0);
        assert_int_equal(at, want);
    }
    rpl_codeobj_set_free(orig);
    rpl_codeobj_set_free(cand);
}

/* The exact name wins; a name without a hash matches only itself. */
static void test_exact_first(void **state)
{
    rpl_codeobj_set *orig = read_set(FX "/tu_globals_sm90.cubin");
    const char *plain[] = {"counter", "_Z7counter"};
    size_t at = 99;

    (void)state;
    for (size_t i = 0; i < orig->n_globals; i++) {
        assert_int_equal(rpl_global_match(orig->globals[i], names(orig), orig->n_globals, &at), 0);
        assert_int_equal(at, i);
    }
    assert_int_equal(rpl_global_match("counter", plain, 2, &at), 0);
    assert_int_equal(at, 0);
    assert_int_equal(rpl_global_match("_Z8counter2", plain, 2, &at), RPL_ENOTFOUND);
    rpl_codeobj_set_free(orig);
}

/* Compiled under another file name, the names differ beyond the hash: no match. */
static void test_other_file_name(void **state)
{
    rpl_codeobj_set *orig = read_set(FX "/tu_globals_sm90.cubin");
    rpl_codeobj_set *cand = read_set(FX "/tu_globals_renamed_sm90.cubin");
    size_t at = 99;

    (void)state;
    for (size_t i = 0; i < orig->n_globals; i++)
        assert_int_equal(rpl_global_match(orig->globals[i], names(cand), cand->n_globals, &at),
                         RPL_ENOTFOUND);
    assert_int_equal(at, 99);
    rpl_codeobj_set_free(orig);
    rpl_codeobj_set_free(cand);
}

/* `s` with every `from` replaced by `to` (as long), malloc'ed. */
static char *replace_all(const char *s, const char *from, const char *to)
{
    char *out = strdup(s), *p = out;

    assert_non_null(out);
    assert_int_equal(strlen(from), strlen(to));
    while ((p = strstr(p, from)) != NULL)
        memcpy(p, to, strlen(to));
    return out;
}

/*
 * nvlink's -rdc names (__nv_static_<len>__<hash>_..., two translation units
 * linked): the first unit's global, its hash changed everywhere as an edit
 * changes it, is found as that unit's and not as the other's (another
 * kernel, so another tail).
 */
static void test_rdc_link(void **state)
{
    rpl_codeobj_set *rdc = read_set(FX "/tu_globals_rdc_sm90.cubin");
    size_t first = global_with(rdc, "tu_sum10warps_doneE"), at = 0;
    char *edited = NULL, *key = NULL;

    (void)state;
    assert_int_equal(rdc->count, 2);
    global_with(rdc, "tu_sum210warps_doneE");
    assert_non_null(strstr(rdc->globals[first], "__nv_static_"));
    edited = replace_all(rdc->globals[first], "12306b83", "0badcafe");
    assert_string_not_equal(edited, rdc->globals[first]);
    assert_int_equal(rpl_global_match(edited, names(rdc), rdc->n_globals, &at), 0);
    assert_int_equal(at, first);
    assert_int_equal(rpl_global_key(&key, edited), 0);
    assert_null(strstr(key, "0badcafe"));
    assert_non_null(strstr(key, "__nv_static_33__@_13_tu_globals_cu_tu_sum__ZN42_INTERNAL_@_"));
    free(key);
    free(edited);
    rpl_codeobj_set_free(rdc);
}

/* Two translation units of one file linked together: which one is meant cannot be told. */
static void test_ambiguous(void **state)
{
    const char *want = "_ZN42_INTERNAL_12306b83_13_tu_globals_cu_tu_sum10warps_doneE";
    const char *have[] = {"_ZN42_INTERNAL_d2d8ba29_13_tu_globals_cu_tu_sum6ignoreE",
                          "_ZN42_INTERNAL_d2d8ba29_13_tu_globals_cu_tu_sum10warps_doneE",
                          "_ZN42_INTERNAL_0badcafe_13_tu_globals_cu_tu_sum10warps_doneE"};
    size_t at = 99;

    (void)state;
    assert_int_equal(rpl_global_match(want, have, 3, &at), RPL_EINPUT);
    assert_int_equal(at, 99);
    assert_non_null(strstr(rpl_error_last()->message, have[1]));
    assert_non_null(strstr(rpl_error_last()->message, have[2]));
    /* The same name listed twice (a fatbin's architectures) is one global. */
    have[2] = have[1];
    assert_int_equal(rpl_global_match(want, have, 3, &at), 0);
    assert_int_equal(at, 1);
}

/* The index of the global named `name`; it must be there. */
static size_t global_named(const rpl_codeobj_set *set, const char *name)
{
    for (size_t i = 0; i < set->n_globals; i++)
        if (strcmp(set->globals[i], name) == 0)
            return i;
    fail_msg("no global %s", name);
    return 0;
}

static bool has_kernel(const rpl_codeobj_set *set, const char *symbol)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->kernels[i].name, symbol) == 0)
            return true;
    return false;
}

/*
 * A header's template kernel built alone (kernels/header/instantiate.cu)
 * against the program that instantiates it beside another kernel
 * (kernels/header/program.cu): the program's counter and the other kernel's
 * string literals are not in the candidate at all, so they are left out of
 * its replay when the dispatch left them unchanged and refused when it wrote
 * them; the names both have are taken as they are (their sizes are the
 * replay's to compare: the literals are numbered anew).
 */
static void test_header_candidate(void **state)
{
    static const char *const absent[] = {"launches", "__unnamed_2", "$str$2", "$str$3"};
    static const char *const shared[] = {"__unnamed_1", "$str", "$str$1"};
    rpl_codeobj_set *prog = read_set(FX "/header_program_sm90.cubin");
    rpl_codeobj_set *cand = read_set(FX "/header_candidate_sm90.cubin");
    rpl_global_plan plan;
    size_t at;

    (void)state;
    assert_true(has_kernel(prog, "_Z10tile_scaleILi64EEvPfPKffi"));
    assert_true(has_kernel(cand, "_Z10tile_scaleILi64EEvPfPKffi"));
    assert_false(has_kernel(cand, "_Z14count_launchesi"));
    assert_int_equal(prog->n_globals, 7);
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
        const char *want = prog->globals[global_named(prog, absent[i])];

        plan = RPL_GLOBAL_USE;
        assert_int_equal(rpl_global_resolve(want, false, names(cand), cand->n_globals, &at, &plan),
                         0);
        assert_int_equal(plan, RPL_GLOBAL_LEAVE_OUT);
        assert_int_equal(rpl_global_resolve(want, true, names(cand), cand->n_globals, &at, &plan),
                         RPL_EINPUT);
        assert_non_null(strstr(rpl_error_last()->message, want));
        assert_non_null(strstr(rpl_error_last()->message, "dispatch wrote it"));
    }
    for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
        size_t want = global_named(cand, shared[i]);

        global_named(prog, shared[i]);
        at = cand->n_globals;
        plan = RPL_GLOBAL_LEAVE_OUT;
        assert_int_equal(
            rpl_global_resolve(shared[i], true, names(cand), cand->n_globals, &at, &plan), 0);
        assert_int_equal(plan, RPL_GLOBAL_USE);
        assert_int_equal(at, want);
    }
    rpl_codeobj_set_free(prog);
    rpl_codeobj_set_free(cand);
}

/* A twin is used whether or not the dispatch wrote it; an ambiguous one is refused either way. */
static void test_resolve_twin(void **state)
{
    const char *want = "_ZN42_INTERNAL_12306b83_13_tu_globals_cu_tu_sum10warps_doneE";
    const char *have[] = {"_ZN42_INTERNAL_d2d8ba29_13_tu_globals_cu_tu_sum6ignoreE",
                          "_ZN42_INTERNAL_d2d8ba29_13_tu_globals_cu_tu_sum10warps_doneE",
                          "_ZN42_INTERNAL_0badcafe_13_tu_globals_cu_tu_sum10warps_doneE"};
    rpl_global_plan plan;
    size_t at = 99;

    (void)state;
    for (int changed = 0; changed < 2; changed++) {
        plan = RPL_GLOBAL_LEAVE_OUT;
        assert_int_equal(rpl_global_resolve(want, changed, have, 2, &at, &plan), 0);
        assert_int_equal(plan, RPL_GLOBAL_USE);
        assert_int_equal(at, 1);
        assert_int_equal(rpl_global_resolve(want, changed, have, 3, &at, &plan), RPL_EINPUT);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_globals_listed),   cmocka_unit_test(test_edited_copy_matches),
        cmocka_unit_test(test_exact_first),      cmocka_unit_test(test_other_file_name),
        cmocka_unit_test(test_rdc_link),         cmocka_unit_test(test_ambiguous),
        cmocka_unit_test(test_header_candidate), cmocka_unit_test(test_resolve_twin),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
