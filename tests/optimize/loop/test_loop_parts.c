/* The LLM loop's parts: template rendering and loading, archive, strategy line, retargeting. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "loop_int.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/llm_prompt.h"

static void render_ok(const char *tmpl, const rpl_prompt_var *vars, size_t n, const char *want)
{
    char *out = NULL;

    if (rpl_prompt_render(&out, "t.md", tmpl, vars, n) != 0)
        fail_msg("render('%s'): %s", tmpl, rpl_error_last()->message);
    if (strcmp(out, want) != 0)
        fail_msg("render('%s')\n  got  '%s'\n  want '%s'", tmpl, out, want);
    free(out);
}

static void render_placeholders(void **state)
{
    const rpl_prompt_var vars[] = {{"kernel", "k{{x}}"}, {"a_1", "A"}, {"none", NULL}};
    char *out = NULL;

    (void)state;
    render_ok("{{kernel}} and {{ a_1 }}!", vars, 3, "k{{x}} and A!"); /* values not re-read */
    render_ok("", vars, 3, "");
    render_ok("[{{none}}]", vars, 3, "[]");
    /* Braces that are no placeholder stay. */
    render_ok("{{ }} {{X}} {{1a}} {{a_1} {{{a_1}}", vars, 3, "{{ }} {{X}} {{1a}} {{a_1} {A");
    render_ok("int a[2] = {{1, 2}};", vars, 3, "int a[2] = {{1, 2}};");

    assert_int_equal(
        rpl_prompt_render(&out, "dir/user.md", "one\ntwo {{a_1}}\n{{rooflin}}\n", vars, 3),
        RPL_EUSAGE);
    assert_null(out);
    assert_string_equal(rpl_error_last()->message,
                        "dir/user.md:3: unknown placeholder {{rooflin}}");
}

static char tmpdir[256];

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(rpl_file_write_atomic(path, text, strlen(text)), 0);
}

static void load_defaults_and_overrides(void **state)
{
    rpl_prompt_set *set = NULL;
    char over[300];

    (void)state;
    /* The shipped templates load and use only known placeholders. */
    assert_int_equal(rpl_prompt_set_load(&set, RPL_LLM_TEMPLATES, NULL), 0);
    for (int k = 0; k < RPL_PROMPT_KINDS; k++)
        assert_non_null(strstr(set->path[k], rpl_prompt_file_name((rpl_prompt_kind)k)));
    assert_non_null(strstr(set->text[RPL_PROMPT_USER], "{{kernel}}"));
    assert_non_null(strstr(set->text[RPL_PROMPT_USER], "{{feedback}}"));
    assert_non_null(strstr(set->text[RPL_PROMPT_USER], "{{archive}}"));
    rpl_prompt_set_free(set);

    /* An override directory replaces the files it holds, one by one. */
    snprintf(tmpdir, sizeof(tmpdir), "%s/loop_parts_prompts", RPL_TEST_TMP);
    snprintf(over, sizeof(over), "%s/over", tmpdir);
    assert_int_equal(rpl_remove_tree(tmpdir), 0);
    assert_int_equal(rpl_mkdir_p(over), 0);
    write_file(over, "user.md", "Make {{kernel_name}} faster.\n{{kernel}}\n");
    assert_int_equal(rpl_prompt_set_load(&set, RPL_LLM_TEMPLATES, over), 0);
    assert_string_equal(set->text[RPL_PROMPT_USER], "Make {{kernel_name}} faster.\n{{kernel}}\n");
    assert_non_null(strstr(set->path[RPL_PROMPT_SYSTEM], RPL_LLM_TEMPLATES));
    rpl_prompt_set_free(set);

    /* An unknown placeholder is a usage error naming file and line. */
    write_file(over, "repair.md", "Fix it:\n{{feedbak}}\n");
    assert_int_equal(rpl_prompt_set_load(&set, RPL_LLM_TEMPLATES, over), RPL_EUSAGE);
    assert_null(set);
    assert_non_null(strstr(rpl_error_last()->message, "over/repair.md:2: unknown placeholder "
                                                      "{{feedbak}}"));
    /* The contract may not include itself. */
    write_file(over, "repair.md", "{{feedback}}\n");
    write_file(over, "contract.md", "{{contract}}\n");
    assert_int_equal(rpl_prompt_set_load(&set, RPL_LLM_TEMPLATES, over), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "contract.md:1: unknown placeholder"));

    /* Missing everywhere; a missing override directory. */
    assert_int_equal(rpl_prompt_set_load(&set, over, NULL), RPL_EENV);
    assert_non_null(strstr(rpl_error_last()->message, "system.md not found"));
    snprintf(over, sizeof(over), "%s/absent", tmpdir);
    assert_int_equal(rpl_prompt_set_load(&set, RPL_LLM_TEMPLATES, over), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "--prompt-dir"));
    assert_int_equal(rpl_remove_tree(tmpdir), 0);
}

static rpl_archive_entry entry(int turn, double speedup, const char *verdict)
{
    rpl_archive_entry e = {turn, "saxpy", "use float4 loads", (char *)verdict, speedup, NAN,
                           NAN,  NULL};
    return e;
}

static void archive_keeps_top_k(void **state)
{
    rpl_archive a;
    rpl_archive_entry e;
    char *text = NULL;

    (void)state;
    assert_int_equal(rpl_archive_init(&a, 2), 0);
    assert_int_equal(rpl_archive_format(&text, &a), 0);
    assert_non_null(strstr(text, "None yet"));
    free(text);

    e = entry(1, 0.95, "slower");
    assert_int_equal(rpl_archive_add(&a, &e), 0);
    e = entry(2, NAN, "not-significant");
    assert_int_equal(rpl_archive_add(&a, &e), 0);
    e = entry(3, 1.20, "accepted");
    e.ci_lo = 1.15;
    e.ci_hi = 1.25;
    assert_int_equal(rpl_archive_add(&a, &e), 0);
    e = entry(4, 0.95, "slower"); /* ties with turn 1: the earlier stays */
    e.strategy = "";
    assert_int_equal(rpl_archive_add(&a, &e), 0);

    assert_int_equal(a.count, 2);
    assert_int_equal(a.items[0].turn, 3);
    assert_int_equal(a.items[1].turn, 1);
    assert_int_equal(rpl_archive_format(&text, &a), 0);
    assert_string_equal(text, "- turn 3 (saxpy): accepted, speedup 1.200x (95% CI 1.150-1.250); "
                              "strategy: use float4 loads\n"
                              "- turn 1 (saxpy): slower, speedup 0.950x; strategy: use float4 "
                              "loads\n");
    free(text);
    /* An accepted one's counter figures beside the reference's; a turn not held: nothing. */
    assert_int_equal(rpl_archive_set_facts(&a, 3, "counters: HBM bytes 1.2e+07 -> 4e+06"), 0);
    assert_int_equal(rpl_archive_set_facts(&a, 2, "counters: FLOPs 1 -> 2"), 0);
    assert_int_equal(rpl_archive_format(&text, &a), 0);
    assert_string_equal(text, "- turn 3 (saxpy): accepted, speedup 1.200x (95% CI 1.150-1.250); "
                              "counters: HBM bytes 1.2e+07 -> 4e+06; strategy: use float4 loads\n"
                              "- turn 1 (saxpy): slower, speedup 0.950x; strategy: use float4 "
                              "loads\n");
    free(text);
    rpl_archive_release(&a);
}

static void strategy(const char *reply, const char *want)
{
    char *out = NULL;

    assert_int_equal(rpl_reply_strategy(&out, reply), 0);
    if (strcmp(out, want) != 0)
        fail_msg("strategy of '%s'\n  got  '%s'\n  want '%s'", reply, out, want);
    free(out);
}

static void strategy_line(void **state)
{
    char long_reply[400];

    (void)state;
    strategy("**Strategy:** vectorised loads\n```cpp\n__global__ void k() {}\n```\n",
             "vectorised loads");
    strategy("Strategy: **double buffering**\n```cpp\nx\n```", "double buffering");
    strategy("Strategy\n", "Strategy");
    strategy("<think>\nhmm\n</think>\n\n## Tiling in LDS\n```cpp\nx\n```", "Tiling in LDS");
    strategy("```cpp\n__global__ void k() {}\n```\nUnrolled by 4.\n", "Unrolled by 4.");
    strategy("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nthen done", "then done");
    strategy("```cpp\nonly code\n```\n", "");
    strategy(NULL, "");
    strategy("reasoning</think>\nafter", "after");
    memset(long_reply, 'x', sizeof(long_reply) - 1);
    long_reply[sizeof(long_reply) - 1] = '\0';
    memcpy(long_reply + 119, "\xc3\xa9", 2); /* a two-byte character across the cut */
    {
        char *out = NULL;
        assert_int_equal(rpl_reply_strategy(&out, long_reply), 0);
        assert_int_equal(strlen(out), 119);
        free(out);
    }
}

static void retarget(void **state)
{
    const rpl_path_kernel before[] = {{"a", 0.8, true}, {"b", 0.15, true}};
    const rpl_path_kernel after[] = {{"a", 0.35, true}, {"b", 0.55, true}, {"lib", 0.1, false}};
    const rpl_path_kernel foreign[] = {{"a", 0.2, true}, {"lib", 0.8, false}};
    rpl_retarget r;

    (void)state;
    assert_int_equal(rpl_retarget_choose(&r, before, 2, NULL, false, false), 0);
    assert_string_equal(r.target, "a");
    assert_false(r.shifted);
    assert_false(r.low_fraction);
    assert_null(r.message);
    rpl_retarget_release(&r);

    assert_int_equal(rpl_retarget_choose(&r, before, 2, "a", false, false), 0);
    assert_string_equal(r.target, "a");
    assert_null(r.message);
    rpl_retarget_release(&r);

    assert_int_equal(rpl_retarget_choose(&r, after, 3, "a", false, false), 0);
    assert_string_equal(r.target, "b");
    assert_true(r.shifted);
    assert_true(r.low_fraction);
    assert_string_equal(r.message,
                        "dominance shift: b now holds 55.0% of the critical path, a 35.0%; "
                        "retargeting to b; the dominant kernel b holds only 55.0% of the "
                        "critical path (f < 0.7): whole-application ceiling 2.22x, expect "
                        "dominance shifts");
    rpl_retarget_release(&r);

    /* --kernel pins the target; the shift is still reported. */
    assert_int_equal(rpl_retarget_choose(&r, after, 3, "a", true, false), 0);
    assert_string_equal(r.target, "a");
    assert_non_null(strstr(r.message, "staying on a (--kernel)"));
    rpl_retarget_release(&r);

    /* A kernel outside the source dominates: the best of the source is the target. */
    assert_int_equal(rpl_retarget_choose(&r, foreign, 2, "a", false, false), 0);
    assert_string_equal(r.target, "a");
    assert_non_null(strstr(r.message, "lib is not defined in the source"));
    rpl_retarget_release(&r);

    assert_int_equal(rpl_retarget_choose(&r, foreign + 1, 1, NULL, false, false), RPL_ENOTFOUND);

    /* Ranked by GPU time (no kernel of the source on the critical path): said so, no ceiling. */
    assert_int_equal(rpl_retarget_choose(&r, after, 3, "a", false, true), 0);
    assert_string_equal(r.target, "b");
    assert_string_equal(r.message,
                        "dominance shift: b now holds 55.0% of the GPU's busy time, a 35.0%; "
                        "retargeting to b; the dominant kernel b holds only 55.0% of the GPU's "
                        "busy time (f < 0.7; no kernel of the source is on the critical path): "
                        "expect dominance shifts");
    rpl_retarget_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(render_placeholders),
        cmocka_unit_test(load_defaults_and_overrides),
        cmocka_unit_test(archive_keeps_top_k),
        cmocka_unit_test(strategy_line),
        cmocka_unit_test(retarget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
