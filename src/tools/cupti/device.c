/* The GPU agent's facts, read from the CUDA driver when a context appears. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>

#include "cupti_int.h"
#include "rpl/error.h"

static int attr(CUdevice dev, CUdevice_attribute a)
{
    int v = 0;

    if (cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS)
        return 0;
    return v;
}

static void put_num(cJSON *obj, const char *key, double v)
{
    cJSON_AddNumberToObject(obj, key, v);
}

/* CUPTI's chip name ("GH100"), or "" when the profiler cannot name it. */
static const char *chip_name(uint32_t ordinal)
{
    CUpti_Device_GetChipName_Params p = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};

    p.deviceIndex = ordinal;
    if (cuptiDeviceGetChipName(&p) != CUPTI_SUCCESS || !p.pChipName)
        return "";
    return p.pChipName;
}

int cr_device_describe(cr_device *out, int ordinal)
{
    CUdevice dev;
    CUuuid uuid;
    size_t mem = 0;
    int drv = 0, sm_khz, mem_khz, bus_bits, warp;
    char uuid_str[40], pci[32];
    cJSON *x;

    memset(out, 0, sizeof(*out));
    if (cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS)
        return rpl_error_set(RPL_EENV, "cannot open CUDA device %d", ordinal);
    out->ordinal = (uint32_t)ordinal;
    if (cuDeviceGetName(out->name, (int)sizeof(out->name), dev) != CUDA_SUCCESS)
        snprintf(out->name, sizeof(out->name), "CUDA device %d", ordinal);
    out->cc_major = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    out->cc_minor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    sm_khz = attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    mem_khz = attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    bus_bits = attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    warp = attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    cuDeviceTotalMem(&mem, dev);
    cuDriverGetVersion(&drv);
    memset(&uuid, 0, sizeof(uuid));
    cuDeviceGetUuid(&uuid, dev);
    for (int i = 0; i < 16; i++)
        snprintf(uuid_str + 2 * i, 3, "%02x", (unsigned char)uuid.bytes[i]);
    snprintf(pci, sizeof(pci), "%04x:%02x:%02x.0", attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
             attr(dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
             attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));

    x = cJSON_CreateObject();
    if (!x)
        return rpl_error_oom();
    cJSON_AddStringToObject(x, "vendor", "NVIDIA");
    cJSON_AddStringToObject(x, "name", out->name);
    cJSON_AddStringToObject(x, "chip_name", chip_name((uint32_t)ordinal));
    put_num(x, "compute_capability_major", out->cc_major);
    put_num(x, "compute_capability_minor", out->cc_minor);
    /* The rocprofv3 agent keys the analyses read (cu = SM, wave = warp). */
    put_num(x, "cu_count", attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
    put_num(x, "simd_per_cu", 4); /* SM sub-partitions on sm_70 and later */
    put_num(x, "wave_front_size", warp);
    put_num(x, "max_waves_per_cu",
            warp ? attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / warp : 0);
    put_num(x, "max_engine_clk_fcompute", sm_khz / 1000.0);
    /* NVIDIA facts. */
    put_num(x, "sm_count", attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
    put_num(x, "sm_clock_khz", sm_khz);
    put_num(x, "memory_clock_khz", mem_khz);
    put_num(x, "memory_bus_width_bits", bus_bits);
    /* Double data rate: two transfers per memory clock over the bus. */
    put_num(x, "memory_bandwidth_bytes_per_s", 2.0 * mem_khz * 1000.0 * (bus_bits / 8.0));
    put_num(x, "global_memory_bytes", (double)mem);
    put_num(x, "l2_cache_bytes", attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
    put_num(x, "registers_per_sm", attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR));
    put_num(x, "registers_per_block", attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK));
    put_num(x, "shared_memory_per_sm",
            attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
    put_num(x, "shared_memory_per_block",
            attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
    put_num(x, "shared_memory_per_block_optin",
            attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
    put_num(x, "reserved_shared_memory_per_block",
            attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
    put_num(x, "max_threads_per_sm", attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR));
    put_num(x, "max_blocks_per_sm", attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR));
    put_num(x, "max_threads_per_block", attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    put_num(x, "warp_size", warp);
    put_num(x, "ecc_enabled", attr(dev, CU_DEVICE_ATTRIBUTE_ECC_ENABLED));
    put_num(x, "driver_version", drv);
    put_num(x, "ordinal", ordinal);
    cJSON_AddStringToObject(x, "uuid", uuid_str);
    cJSON_AddStringToObject(x, "pci_bus_id", pci);
    out->extdata = x;
    return 0;
}
