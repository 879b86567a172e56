/*
 * rpl_occ_nv against NVIDIA's own calculator, cuda_occupancy.h (a C header
 * of the CUDA toolkit, no GPU needed), over a sweep of registers, block
 * sizes, static and dynamic shared memory and barriers, for every NVIDIA
 * row of the arch table.  The device properties handed to the header are
 * the table's, so this checks the formulas; the table's facts themselves
 * are checked on a GPU by gpu/occupancy_check.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_occupancy.h>

#include "rpl/error.h"
#include "rpl/occupancy.h"

static cudaOccDeviceProp props_of(const rpl_arch *a)
{
    cudaOccDeviceProp p;

    memset(&p, 0, sizeof(p));
    p.computeMajor = (int)a->compute_capability / 10;
    p.computeMinor = (int)a->compute_capability % 10;
    p.maxThreadsPerBlock = (int)a->max_workgroup_size;
    p.maxThreadsPerMultiprocessor = (int)(a->max_waves_per_cu * a->wave_size);
    p.regsPerBlock = (int)a->regs_per_block;
    p.regsPerMultiprocessor = (int)a->regs_per_sm;
    p.warpSize = (int)a->wave_size;
    p.sharedMemPerBlock = a->lds_per_workgroup;
    p.sharedMemPerMultiprocessor = a->lds_per_cu;
    p.numSms = 132;
    p.sharedMemPerBlockOptin = a->smem_per_block_optin;
    p.reservedSharedMemPerBlock = a->reserved_smem_per_block;
    return p;
}

static int reference(const cudaOccDeviceProp *p, int regs, int block, size_t smem, size_t dyn,
                     int barriers, int optin)
{
    cudaOccFuncAttributes attr;
    cudaOccDeviceState st;
    cudaOccResult res;

    memset(&attr, 0, sizeof(attr));
    memset(&st, 0, sizeof(st));
    memset(&res, 0, sizeof(res));
    attr.maxThreadsPerBlock = p->maxThreadsPerBlock;
    attr.numRegs = regs;
    attr.sharedSizeBytes = smem;
    attr.partitionedGCConfig = PARTITIONED_GC_OFF;
    attr.shmemLimitConfig = optin ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
    attr.maxDynamicSharedSizeBytes = optin ? p->sharedMemPerBlockOptin - smem : 0;
    attr.numBlockBarriers = barriers;
    st.cacheConfig = CACHE_PREFER_NONE;
    st.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, p, &attr, &st, block, dyn) !=
        CUDA_OCC_SUCCESS)
        return -1;
    return res.activeBlocksPerMultiprocessor;
}

static void sweep(void **state)
{
    static const unsigned smems[] = {0, 400, 4096, 8192, 16384, 40000, 49152};
    static const unsigned dyns[] = {0, 1000, 20000, 70000, 150000};
    static const unsigned barriers[] = {0, 1, 3, 16};
    size_t n, checked = 0;
    const rpl_arch *all = rpl_arch_all(&n);

    (void)state;
    for (size_t i = 0; i < n; i++) {
        const rpl_arch *a = &all[i];
        cudaOccDeviceProp p;

        if (a->vendor != RPL_VENDOR_NVIDIA)
            continue;
        p = props_of(a);
        for (unsigned regs = 0; regs <= 256; regs += (regs < 64 ? 1 : 7))
            for (unsigned block = 1; block <= 1024; block += (block < 128 ? 31 : 96))
                for (size_t s = 0; s < sizeof(smems) / sizeof(smems[0]); s++)
                    for (size_t d = 0; d < sizeof(dyns) / sizeof(dyns[0]); d++)
                        for (size_t b = 0; b < sizeof(barriers) / sizeof(barriers[0]); b++) {
                            int optin = dyns[d] > 40000;
                            rpl_occ_nv_input in = {regs,        block, smems[s], dyns[d],
                                                   barriers[b], 0,     optin};
                            rpl_occupancy o;
                            int want = reference(&p, (int)regs, (int)block, smems[s], dyns[d],
                                                 (int)barriers[b], optin);

                            if (want < 0 ||
                                (dyns[d] && smems[s] + dyns[d] > a->smem_per_block_optin))
                                continue; /* the header refuses the input */
                            assert_int_equal(rpl_occ_nv(&o, a, &in), 0);
                            if ((int)o.blocks_per_cu != want)
                                fail_msg("%s regs %u block %u smem %u dyn %u barriers %u: "
                                         "cuda_occupancy.h %d, rpl %u",
                                         a->name, regs, block, smems[s], dyns[d], barriers[b], want,
                                         o.blocks_per_cu);
                            checked++;
                        }
    }
    printf("compared %zu configurations with cuda_occupancy.h\n", checked);
    assert_true(checked > 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(sweep)};

    return cmocka_run_group_tests(tests, NULL, NULL);
}
