/*
 * libFuzzer entry for the counter run's sample plan reader
 * (cr_sample_plan_load, src/tools/cupti/sample.c): the bytes become the plan
 * file, then launches of a few names are counted against it.  Seeds:
 * plan_seeds/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "recorder.h"
#include "rpl/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_sample_plan_XXXXXX";
    int fd = mkstemp(path);
    cr_sample s;

    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    if (cr_sample_parse(&s, "1", "2") == 0) {
        if (cr_sample_plan_load(&s, path) == 0)
            for (int i = 0; i < 8 && !cr_sample_complete(&s); i++)
                cr_sample_next(&s, i % 2 ? "a" : "_Z4gemmPKfS0_Pfi");
        cr_sample_release(&s);
    }
    rpl_error_clear();
    unlink(path);
    return 0;
}
