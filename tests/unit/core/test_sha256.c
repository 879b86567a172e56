/* rpl/sha256.h: the FIPS 180-2 test vectors, pieces equal the whole, files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/sha256.h"

#define ABC_HEX   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define EMPTY_HEX "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/* The two-block message of FIPS 180-2, appendix B.2. */
#define TWO_BLOCKS     "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#define TWO_BLOCKS_HEX "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"

static void known_vectors(void **state)
{
    char hex[65];

    (void)state;
    assert_int_equal(rpl_sha256_buf(hex, "abc", 3), 0);
    assert_string_equal(hex, ABC_HEX);
    assert_int_equal(rpl_sha256_buf(hex, "", 0), 0);
    assert_string_equal(hex, EMPTY_HEX);
    assert_int_equal(rpl_sha256_buf(hex, TWO_BLOCKS, strlen(TWO_BLOCKS)), 0);
    assert_string_equal(hex, TWO_BLOCKS_HEX);
}

static void pieces_give_the_digest_of_the_whole(void **state)
{
    const char *msg = TWO_BLOCKS;
    rpl_sha256 *h;
    char hex[65];

    (void)state;
    assert_int_equal(rpl_sha256_new(&h), 0);
    for (size_t i = 0, len = strlen(msg); i < len; i += 5) /* the last piece is shorter */
        assert_int_equal(rpl_sha256_update(h, msg + i, len - i < 5 ? len - i : 5), 0);
    assert_int_equal(rpl_sha256_update(h, NULL, 0), 0);
    assert_int_equal(rpl_sha256_final(h, hex), 0);
    assert_string_equal(hex, TWO_BLOCKS_HEX);
}

static void an_unfinished_digest_is_freed(void **state)
{
    rpl_sha256 *h;

    (void)state;
    assert_int_equal(rpl_sha256_new(&h), 0);
    assert_int_equal(rpl_sha256_update(h, "abc", 3), 0);
    rpl_sha256_free(h);
    rpl_sha256_free(NULL);
}

static void files_are_read_whole(void **state)
{
    const char *path = RPL_TEST_TMP "/sha256-input.bin";
    char hex[65], want[65];
    static char big[200000];
    FILE *f;

    (void)state;
    /* Larger than the read buffer, so the file takes several reads. */
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (char)(i * 131 + 7);
    assert_non_null(f = fopen(path, "wb"));
    assert_int_equal(fwrite(big, 1, sizeof(big), f), sizeof(big));
    assert_int_equal(fclose(f), 0);
    assert_int_equal(rpl_sha256_buf(want, big, sizeof(big)), 0);
    assert_int_equal(rpl_sha256_file(hex, path), 0);
    assert_string_equal(hex, want);
    remove(path);
    assert_int_equal(rpl_sha256_file(hex, path), RPL_ENOTFOUND);
    assert_non_null(strstr(rpl_error_last()->message, "sha256-input.bin"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_vectors),
        cmocka_unit_test(pieces_give_the_digest_of_the_whole),
        cmocka_unit_test(an_unfinished_digest_is_freed),
        cmocka_unit_test(files_are_read_whole),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
