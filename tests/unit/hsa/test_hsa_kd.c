/*
 * Kernel descriptors, ".kd" names and ISA names (rpl/hsa.h).  The
 * descriptors are those of the fixture code object built by hipcc
 * (tests/fixtures/hsa): their sizes must equal the code object metadata
 * that rpl_codeobj reads, and their entry offset must land on the kernel's
 * function symbol.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "elf_symbols.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/hsa.h"

#define FIXTURE RPL_FIXTURES "/hsa/kernels.hsaco"

static void descriptors_agree_with_metadata_and_code(void **state)
{
    rpl_codeobj_set *set = NULL;
    char *image = NULL;
    size_t len = 0, i;
    int checked = 0;

    assert_int_equal(rpl_file_read_all(FIXTURE, 1 << 20, &image, &len), 0);
    assert_int_equal(rpl_codeobj_set_new(&set), 0);
    assert_int_equal(rpl_codeobj_read_buffer(set, image, len, "kernels.hsaco"), 0);
    assert_int_equal(set->count, 4);
    for (i = 0; i < set->count; i++) {
        const rpl_kernel_info *k = &set->kernels[i];
        const unsigned char *kd_bytes, *code;
        uint64_t kd_addr, kd_size, fn_addr, fn_size;
        rpl_amd_kd kd;

        assert_true(rpl_amd_is_kd_symbol(k->symbol));
        assert_int_equal(test_elf_symbol(image, len, k->symbol, &kd_bytes, &kd_addr, &kd_size), 0);
        assert_int_equal(kd_size, RPL_AMD_KD_BYTES);
        assert_int_equal(rpl_amd_kd_parse(&kd, kd_bytes, kd_size), 0);
        assert_int_equal(kd.group_segment_fixed_size, k->group_segment_fixed_size);
        assert_int_equal(kd.private_segment_fixed_size, k->private_segment_fixed_size);
        assert_int_equal(kd.kernarg_size, k->kernarg_segment_size);
        assert_int_equal(kd.wavefront_size32, k->wavefront_size == 32);
        assert_int_equal(kd.uses_dynamic_stack, k->uses_dynamic_stack == 1);
        assert_int_equal(test_elf_symbol(image, len, k->name, &code, &fn_addr, &fn_size), 0);
        assert_true(kd_addr + (uint64_t)kd.kernel_code_entry_byte_offset == fn_addr);
        assert_int_not_equal(kd.compute_pgm_rsrc1, 0);
        checked++;
    }
    assert_int_equal(checked, 4);
    rpl_codeobj_set_free(set);
    free(image);
}

static void property_bits_are_decoded(void **state)
{
    unsigned char b[RPL_AMD_KD_BYTES] = {0};
    rpl_amd_kd kd;

    b[56] = 1 << 2;          /* enable_sgpr_queue_ptr */
    b[57] = 1 << 2 | 1 << 3; /* bit 10 wave32, bit 11 dynamic stack */
    b[58] = 3;               /* kernarg_preload */
    b[16] = 0x40;            /* entry offset -0x...c0: negative */
    memset(b + 17, 0xff, 7);
    assert_int_equal(rpl_amd_kd_parse(&kd, b, sizeof(b)), 0);
    assert_true(kd.uses_queue_ptr);
    assert_true(kd.wavefront_size32);
    assert_true(kd.uses_dynamic_stack);
    assert_int_equal(kd.kernarg_preload, 3);
    assert_true(kd.kernel_code_entry_byte_offset == -192);
    memset(b + 56, 0, 2);
    assert_int_equal(rpl_amd_kd_parse(&kd, b, sizeof(b)), 0);
    assert_false(kd.uses_queue_ptr);
    assert_false(kd.wavefront_size32);
    assert_int_equal(rpl_amd_kd_parse(&kd, b, 63), RPL_EINPUT);
}

static void kd_names(void **state)
{
    char *s = NULL;

    assert_true(rpl_amd_is_kd_symbol("_Z9incrementPi.kd"));
    assert_true(rpl_amd_is_kd_symbol("increment(int*) [clone .kd]"));
    assert_false(rpl_amd_is_kd_symbol("_Z9incrementPi"));
    assert_false(rpl_amd_is_kd_symbol(".kd")); /* a suffix alone names nothing */
    assert_false(rpl_amd_is_kd_symbol("kd"));

    assert_int_equal(rpl_amd_kd_symbol(&s, "_Z9incrementPi"), 0);
    assert_string_equal(s, "_Z9incrementPi.kd");
    free(s);
    assert_int_equal(rpl_amd_kernel_name(&s, "_Z9incrementPi.kd"), 0);
    assert_string_equal(s, "_Z9incrementPi");
    free(s);
    assert_int_equal(rpl_amd_kernel_name(&s, "increment(int*) [clone .kd]"), 0);
    assert_string_equal(s, "increment(int*)");
    free(s);
    /* Not a descriptor name: unchanged, ".kd" inside a name stays. */
    assert_int_equal(rpl_amd_kernel_name(&s, "a.kd.b"), 0);
    assert_string_equal(s, "a.kd.b");
    free(s);
}

static void isa_names_parse(void **state)
{
    rpl_amd_isa isa;

    assert_int_equal(rpl_amd_isa_parse(&isa, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), 0);
    assert_string_equal(isa.processor, "gfx942");
    assert_int_equal(isa.sramecc, RPL_AMD_FEATURE_ON);
    assert_int_equal(isa.xnack, RPL_AMD_FEATURE_OFF);
    assert_int_equal(rpl_amd_isa_parse(&isa, "gfx90a:xnack+"), 0);
    assert_string_equal(isa.processor, "gfx90a");
    assert_int_equal(isa.sramecc, RPL_AMD_FEATURE_ANY);
    assert_int_equal(isa.xnack, RPL_AMD_FEATURE_ON);
    assert_int_equal(rpl_amd_isa_parse(&isa, "amdgcn-amd-amdhsa--gfx1100"), 0);
    assert_string_equal(isa.processor, "gfx1100");
    assert_int_equal(rpl_amd_isa_parse(&isa, "amdgcn-amd-amdhsa--gfx90a:foo+:xnack"), 0);
    assert_int_equal(isa.xnack, RPL_AMD_FEATURE_ANY);

    assert_int_equal(rpl_amd_isa_parse(&isa, "sm_90"), RPL_EINPUT);
    assert_int_equal(rpl_amd_isa_parse(&isa, ""), RPL_EINPUT);
    assert_int_equal(rpl_amd_isa_parse(&isa, "amdgcn-amd-amdhsa--"), RPL_EINPUT);
    assert_int_equal(rpl_amd_isa_parse(&isa, "gfx"), RPL_EINPUT);
    assert_int_equal(rpl_amd_isa_parse(&isa, "gfx12345678901234567890123456789012"), RPL_EINPUT);
}

static int compatible(const char *want, const char *have)
{
    rpl_amd_isa w, h;

    assert_int_equal(rpl_amd_isa_parse(&w, want), 0);
    assert_int_equal(rpl_amd_isa_parse(&h, have), 0);
    return rpl_amd_isa_compatible(&w, &h);
}

static void isa_compatibility(void **state)
{
    const char *mi300 = "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-";

    assert_true(compatible(mi300, mi300));
    assert_true(compatible("amdgcn-amd-amdhsa--gfx942", mi300)); /* code for any setting */
    assert_true(compatible("gfx942:xnack-", mi300));
    assert_false(compatible("gfx942:xnack+", mi300));             /* XNACK differs */
    assert_false(compatible("amdgcn-amd-amdhsa--gfx90a", mi300)); /* other processor */
    assert_false(compatible("gfx94", "gfx942"));                  /* no prefix match */
    assert_true(compatible(mi300, "amdgcn-amd-amdhsa--gfx942"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptors_agree_with_metadata_and_code),
        cmocka_unit_test(property_bits_are_decoded),
        cmocka_unit_test(kd_names),
        cmocka_unit_test(isa_names_parse),
        cmocka_unit_test(isa_compatibility),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
