/* Patch extraction: fences of every kind, think tags, several blocks, truncation, SEARCH/REPLACE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/llm.h"

#define KERNEL "__global__ void saxpy(int n, float a, const float *x, float *y)\n{\n}\n"

static rpl_llm_patch *extract(const char *reply, const char *kernel)
{
    rpl_llm_patch *p = NULL;

    if (rpl_llm_patch_extract(&p, reply, strlen(reply), kernel) != 0)
        fail_msg("extract failed: %s\n--- reply:\n%s", rpl_error_last()->message, reply);
    return p;
}

static void expect_error(const char *reply, const char *kernel, const char *words)
{
    rpl_llm_patch *p = (rpl_llm_patch *)1;

    if (rpl_llm_patch_extract(&p, reply, strlen(reply), kernel) != RPL_EINPUT)
        fail_msg("extract did not fail\n--- reply:\n%s", reply);
    assert_null(p);
    if (!strstr(rpl_error_last()->message, words))
        fail_msg("'%s' lacks '%s'", rpl_error_last()->message, words);
    assert_null(strchr(rpl_error_last()->message, '\n'));
}

static void expect_kernel(const char *reply, const char *want)
{
    rpl_llm_patch *p = extract(reply, "saxpy");

    assert_int_equal(p->kind, RPL_LLM_PATCH_FULL_KERNEL);
    assert_string_equal(rpl_llm_patch_kind_name(p->kind), "full_kernel");
    assert_string_equal(p->code, want);
    rpl_llm_patch_free(p);
}

static void fences_of_every_kind(void **state)
{
    static const char *const opens[] = {
        "```cpp", "```c++", "```hip",  "```cuda", "```cu",    "```c",      "```",
        "~~~cpp", "~~~",    "````cpp", "```CPP",  "``` cuda", "   ```cpp", "```cpp title=k.cu",
        "```cxx"};

    for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++) {
        char reply[512], close[8];
        const char *o = opens[i];
        size_t n = 0;

        while (*o == ' ')
            o++;
        while (o[n] == o[0])
            n++;
        memcpy(close, o, n);
        close[n] = '\0';
        snprintf(reply, sizeof(reply), "Here is the kernel:\n\n%s\n%s%s\n\nIt is faster.\n",
                 opens[i], KERNEL, close);
        expect_kernel(reply, KERNEL);
    }
}

static void crlf_and_longer_closing_fence(void **state)
{
    expect_kernel("```cpp\r\n__global__ void saxpy()\r\n{}\r\n`````\r\n",
                  "__global__ void saxpy()\n{}\n");
    /* A shorter fence or one with text after it does not close the block. */
    expect_kernel("````cpp\n__global__ void saxpy()\n```\n``` not a close\n````\n",
                  "__global__ void saxpy()\n```\n``` not a close\n");
}

static void other_languages_and_prose_are_ignored(void **state)
{
    rpl_llm_patch *p;

    expect_kernel("```python\nprint('__global__ saxpy')\n```\n```cpp\n" KERNEL "```\n", KERNEL);
    /* Inline ``` in a sentence is not a fence. */
    expect_kernel("Wrap code in ```cpp``` blocks.\n```cpp\n" KERNEL "```\n", KERNEL);

    p = extract("```python\n__global__ saxpy\n```\n", "saxpy");
    assert_int_equal(p->kind, RPL_LLM_PATCH_NONE);
    assert_non_null(strstr(p->notes, "no code block marked cpp"));
    rpl_llm_patch_free(p);
}

static void kernel_name_is_a_whole_identifier(void **state)
{
    rpl_llm_patch *p = extract("```cpp\n__global__ void saxpy2(int n) {}\n```\n", "saxpy");

    assert_int_equal(p->kind, RPL_LLM_PATCH_NONE);
    assert_string_equal(p->notes, "no code block of the reply holds the __global__ kernel 'saxpy'");
    rpl_llm_patch_free(p);

    /* Any kernel when no name is given. */
    p = extract("```cpp\n__global__ void saxpy2(int n) {}\n```\n", NULL);
    assert_int_equal(p->kind, RPL_LLM_PATCH_FULL_KERNEL);
    rpl_llm_patch_free(p);

    p = extract("```cpp\nvoid saxpy(int n) {}\n```\n", "saxpy");
    assert_int_equal(p->kind, RPL_LLM_PATCH_NONE);
    assert_string_equal(p->notes, "no code block of the reply holds a __global__ kernel");
    rpl_llm_patch_free(p);
}

static void no_block_at_all(void **state)
{
    rpl_llm_patch *p = extract("I cannot make it faster.", "saxpy");

    assert_int_equal(p->kind, RPL_LLM_PATCH_NONE);
    assert_string_equal(rpl_llm_patch_kind_name(p->kind), "none");
    assert_string_equal(p->notes, "the reply has no fenced code block");
    assert_null(p->code);
    assert_int_equal(p->n_edits, 0);
    rpl_llm_patch_free(p);

    p = extract("", "saxpy");
    assert_int_equal(p->kind, RPL_LLM_PATCH_NONE);
    rpl_llm_patch_free(p);
}

static void several_blocks_take_the_last(void **state)
{
    const char *reply = "First try:\n```cpp\n__global__ void saxpy() { /* v1 */ }\n```\n"
                        "A helper:\n```cpp\n__device__ float f();\n```\n"
                        "Better:\n```hip\n__global__ void saxpy() { /* v2 */ }\n```\n";
    rpl_llm_patch *p = extract(reply, "saxpy");

    assert_int_equal(p->kind, RPL_LLM_PATCH_FULL_KERNEL);
    assert_string_equal(p->code, "__global__ void saxpy() { /* v2 */ }\n");
    assert_non_null(p->notes);
    assert_string_equal(p->notes, "2 code blocks hold the kernel; took the last (line 10)");
    rpl_llm_patch_free(p);
}

static void think_tags(void **state)
{
    rpl_llm_patch *p;

    /* A block inside the reasoning is not the answer. */
    expect_kernel("<think>\nmaybe\n```cpp\n__global__ void saxpy() { /* draft */ }\n```\n"
                  "</think>\n```cpp\n" KERNEL "```\n",
                  KERNEL);
    expect_kernel("<thinking>```cpp\n__global__ void saxpy() {}\n```</thinking>\n"
                  "```cpp\n" KERNEL "```\n",
                  KERNEL);
    /* The opening tag dropped by the server. */
    p = extract("reasoning ```cpp\n__global__ void saxpy() {}\n``` </think>\n```cpp\n" KERNEL
                "```\n",
                "saxpy");
    assert_string_equal(p->code, KERNEL);
    assert_non_null(strstr(p->notes, "lone </think>"));
    rpl_llm_patch_free(p);
    /* Unterminated at the start: all of it is reasoning (the fence in it is not checked). */
    p = extract("<think>\nlet me see\n```cpp\n__global__ void saxpy() {\n", "saxpy");
    assert_int_equal(p->kind, RPL_LLM_PATCH_NONE);
    assert_non_null(strstr(p->notes, "unterminated <think>"));
    assert_non_null(strstr(p->notes, "no fenced code block"));
    rpl_llm_patch_free(p);
}

static void unterminated_fence_is_truncation(void **state)
{
    expect_error("```cpp\n__global__ void saxpy() {\n  y[i] = a *", "saxpy",
                 "ends inside the code block opened on line 1 (truncated?)");
    expect_error("```cpp\n" KERNEL "```\nand a second:\n~~~\n__global__", "saxpy", "line 7");
    /* A tilde block is not closed by backticks. */
    expect_error("~~~cpp\n" KERNEL "```\n", "saxpy", "truncated");
}

static void search_replace_blocks(void **state)
{
    const char *reply = "Two edits:\n"
                        "```cpp\n"
                        "<<<<<<< SEARCH\n"
                        "    int i = threadIdx.x;\n"
                        "=======\n"
                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        ">>>>>>> REPLACE\n"
                        "```\n"
                        "and outside a fence, deleting a line:\n"
                        "<<<<<<< SEARCH\r\n"
                        "    __syncthreads();\r\n"
                        "    __syncthreads();\r\n"
                        "=======\r\n"
                        "    __syncthreads();\r\n"
                        ">>>>>>> REPLACE\r\n"
                        "<<<<<<<  SEARCH\n"
                        "  // unused\n"
                        "=========\n"
                        ">>>>>>>REPLACE   \n";
    rpl_llm_patch *p = extract(reply, "saxpy");

    assert_int_equal(p->kind, RPL_LLM_PATCH_SEARCH_REPLACE);
    assert_string_equal(rpl_llm_patch_kind_name(p->kind), "search_replace");
    assert_int_equal(p->n_edits, 3);
    assert_string_equal(p->edits[0].search, "    int i = threadIdx.x;\n");
    assert_string_equal(p->edits[0].replace,
                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n");
    assert_int_equal(p->edits[0].line, 3);
    assert_string_equal(p->edits[1].search, "    __syncthreads();\n    __syncthreads();\n");
    assert_string_equal(p->edits[1].replace, "    __syncthreads();\n");
    assert_int_equal(p->edits[1].line, 10);
    assert_string_equal(p->edits[2].search, "  // unused\n");
    assert_string_equal(p->edits[2].replace, "");
    assert_null(p->code);
    rpl_llm_patch_free(p);
}

static void search_replace_ignores_rules_in_prose(void **state)
{
    /* A setext heading underline or a long rule between blocks is not a delimiter. */
    rpl_llm_patch *p = extract("Plan\n=======\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
                               "=================\n",
                               "saxpy");

    assert_int_equal(p->kind, RPL_LLM_PATCH_SEARCH_REPLACE);
    assert_int_equal(p->n_edits, 1);
    rpl_llm_patch_free(p);
}

static void malformed_search_replace(void **state)
{
    expect_error("<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", "saxpy",
                 "block 1 (line 1): '>>>>>>> REPLACE' on line 3 before '======='");
    expect_error("<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n", "saxpy",
                 "block 1 (line 1): '=======' on line 5 before '>>>>>>> REPLACE'");
    expect_error("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=======\n",
                 "saxpy", "block 2 (line 6): the reply ends before '>>>>>>> REPLACE'");
    expect_error("<<<<<<< SEARCH\na\n", "saxpy", "ends before '======='");
    expect_error("<<<<<<< SEARCH\na\n<<<<<<< SEARCH\n", "saxpy",
                 "block 1 (line 1): '<<<<<<< SEARCH' on line 3 before '======='");
    expect_error("<<<<<<< SEARCH\n\n=======\nb\n>>>>>>> REPLACE\n", "saxpy",
                 "block 1 (line 1): the SEARCH part is empty");
    expect_error("text\n>>>>>>> REPLACE\n", "saxpy",
                 "block 1: '>>>>>>> REPLACE' on line 2 without '<<<<<<< SEARCH'");
    expect_error("<<<<<<< SERACH\na\n=======\nb\n>>>>>>> REPLACE\n", "saxpy",
                 "block 1: line 1 '<<<<<<< SERACH' is not a delimiter");
    expect_error("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLAC\n", "saxpy",
                 "block 1: line 5 '>>>>>>> REPLAC' is not a delimiter");
    expect_error("<<<<<<<<<<<< SEARCH\na\n", "saxpy", "is not a delimiter");
}

static void search_replace_with_a_full_kernel_is_ambiguous(void **state)
{
    expect_error("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```cpp\n" KERNEL "```\n", "saxpy",
                 "SEARCH/REPLACE blocks and a full kernel in the code block on line 6");
}

static void nul_bytes_are_rejected(void **state)
{
    static const char reply[] = "```cpp\n__global__ void saxpy()\0{}\n```\n";
    rpl_llm_patch *p = NULL;

    assert_int_equal(rpl_llm_patch_extract(&p, reply, sizeof(reply) - 1, "saxpy"), RPL_EINPUT);
    assert_null(p);
    assert_string_equal(rpl_error_last()->message, "the reply holds a NUL byte (offset 30)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fences_of_every_kind),
        cmocka_unit_test(crlf_and_longer_closing_fence),
        cmocka_unit_test(other_languages_and_prose_are_ignored),
        cmocka_unit_test(kernel_name_is_a_whole_identifier),
        cmocka_unit_test(no_block_at_all),
        cmocka_unit_test(several_blocks_take_the_last),
        cmocka_unit_test(think_tags),
        cmocka_unit_test(unterminated_fence_is_truncation),
        cmocka_unit_test(search_replace_blocks),
        cmocka_unit_test(search_replace_ignores_rules_in_prose),
        cmocka_unit_test(malformed_search_replace),
        cmocka_unit_test(search_replace_with_a_full_kernel_is_ambiguous),
        cmocka_unit_test(nul_bytes_are_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
