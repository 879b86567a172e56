/*
 * libFuzzer target for compilation databases (compile_commands.json of CMake
 * and Bear; src/optimize/source/compile_db.c): the input bytes are searched
 * for the entry of /dev/null, and a found command goes through the filter
 * that turns its words into libclang's.  Checked on the way: a refusal hands
 * nothing back and says why; a found entry has words and a directory, and
 * every word the filter keeps is an option libclang is given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/kernel_source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char **words = NULL, **flags = NULL, *dir = NULL;

    rpl_error_clear();
    if (rpl_compile_db_parse((const char *)data, size, "fuzz", "/dev/null", &words, &dir) != 0) {
        const rpl_error *why = rpl_error_last();
        if (words || dir || !why->code || !why->message[0])
            abort();
        return 0;
    }
    if (!words || !dir)
        abort();
    if (rpl_ks_compile_flags((const char *const *)words, dir, &flags) == 0)
        for (size_t i = 0; flags && flags[i]; i++)
            if (flags[i][0] != '-' && (i == 0 || (strcmp(flags[i - 1], "-isystem") != 0 &&
                                                  strcmp(flags[i - 1], "-iquote") != 0 &&
                                                  strcmp(flags[i - 1], "-idirafter") != 0 &&
                                                  strcmp(flags[i - 1], "-include") != 0)))
                abort(); /* a value without its option would change the command's meaning */
    rpl_argv_free(flags);
    rpl_argv_free(words);
    free(dir);
    return 0;
}
