/*
 * Snapshot writer and reader: a round trip of every field, the writer's
 * atomicity (abort, failed commit, existing target), path checks, region
 * lookup, and the reader's rejection of damaged snapshots.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/snapshot.h"

#define TMP RPL_TEST_TMP "/snapshot"

/* A call that must succeed; on failure the library's message is shown. */
#define assert_ok(call)                                                                            \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0)                                                                              \
            fail_msg("%s: %d: %s", #call, rc_, rpl_error_last()->message);                         \
    } while (0)

#define REGION_A 0x7f0000000000ull
#define REGION_B 0x7f0000400000ull
#define SIZE_A   (3u << 20) /* streamed in several chunks */
#define SIZE_B   100u

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run(const char *fmt, ...)
{
    char cmd[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    assert_int_equal(system(cmd), 0);
}

/* Entries of `dir` other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Whether `dir` holds an entry whose name starts with `prefix`. */
static bool temp_left(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool found = false;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        found = found || strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return found;
}

static bool exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

static unsigned char pattern(uint64_t i, bool post)
{
    return (unsigned char)((i * 131u + (post ? 7u : 0u)) >> 3);
}

static void stream_region(rpl_snapshot_writer *w, uint64_t base, uint64_t size, bool post)
{
    unsigned char chunk[65536];
    char *path;

    assert_ok(rpl_snapshot_region_path(&path, base, post));
    assert_ok(rpl_snapshot_writer_open(w, path));
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < sizeof(chunk) ? (size_t)(size - off) : sizeof(chunk);

        for (size_t i = 0; i < n; i++)
            chunk[i] = pattern(off + i, post);
        assert_ok(rpl_snapshot_writer_write(w, chunk, n));
        off += n;
    }
    assert_ok(rpl_snapshot_writer_close(w));
    free(path);
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);

    assert_non_null(d);
    return d;
}

/* Metadata with every field set to something other than its default. */
static rpl_snapshot *full_meta(void)
{
    rpl_snapshot *m = calloc(1, sizeof(*m));

    assert_non_null(m);
    m->backend = RPL_SNAP_HSA;
    m->arch = xstrdup("gfx942");
    m->target = xstrdup("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-");
    m->device_name = xstrdup("AMD Instinct MI300X");
    m->driver_version = xstrdup("6.8.5");
    m->runtime_version = xstrdup("1.14");
    m->tool_version = xstrdup("0.1.0");
    m->mangled_name = xstrdup("_Z10vector_addPfPKfS1_i");
    m->demangled_name = xstrdup("vector_add(float*, float const*, float const*, int)");
    m->code_object_file = xstrdup("kernel.hsaco");
    m->code_object_symbol = xstrdup("_Z10vector_addPfPKfS1_i.kd");
    m->grid[0] = 4096, m->grid[1] = 2, m->grid[2] = 3;
    m->block[0] = 256, m->block[1] = 2, m->block[2] = 1;
    m->cluster[0] = 2, m->cluster[1] = 1, m->cluster[2] = 1;
    m->dynamic_shared_bytes = 1024;
    m->static_shared_bytes = 512;
    m->private_segment_bytes = 64;
    m->kernel_object = 0x7ff012345678ull;
    m->setup_dims = 2;
    m->kernarg_size = 28;
    m->kernarg_align = 16;
    m->kernarg_file = xstrdup("kernarg.bin");
    m->nparams = 4;
    m->params = calloc(4, sizeof(*m->params));
    assert_non_null(m->params);
    for (uint32_t i = 0; i < 3; i++) {
        m->params[i].offset = 8 * i;
        m->params[i].size = 8;
        m->params[i].pointer = true;
        m->params[i].pointee = RPL_DTYPE_F32;
        m->params[i].type = xstrdup(i ? "float const*" : "float*");
    }
    m->params[3].offset = 24;
    m->params[3].size = 4;
    m->params[3].pointee = RPL_DTYPE_BYTES;
    m->dispatch_index = 7;
    m->capture_pid = 4242;
    m->aslr_disabled = true;
    m->captured_at = xstrdup("2026-11-24T12:00:00Z");
    m->nregions = 2;
    m->regions = calloc(2, sizeof(*m->regions));
    assert_non_null(m->regions);
    m->regions[0].base = REGION_A;
    m->regions[0].size = SIZE_A;
    m->regions[0].kind = xstrdup("device");
    assert_ok(rpl_snapshot_region_path(&m->regions[0].file, REGION_A, false));
    assert_ok(rpl_snapshot_region_path(&m->regions[0].post_file, REGION_A, true));
    m->regions[0].dtype = RPL_DTYPE_F32;
    m->regions[0].written = true;
    m->regions[1].base = REGION_B;
    m->regions[1].size = SIZE_B;
    m->regions[1].kind = xstrdup("kernarg");
    assert_ok(rpl_snapshot_region_path(&m->regions[1].file, REGION_B, false));
    m->regions[1].dtype = RPL_DTYPE_BYTES;
    m->nglobals = 1;
    m->globals = calloc(1, sizeof(*m->globals));
    assert_non_null(m->globals);
    m->globals[0].name = xstrdup("counter");
    m->globals[0].address = 0x7ff000001000ull;
    m->globals[0].size = 4;
    assert_ok(rpl_snapshot_global_path(&m->globals[0].file, 0, false));
    assert_ok(rpl_snapshot_global_path(&m->globals[0].post_file, 0, true));
    return m;
}

/* Write every file `m` names. */
static void write_files(rpl_snapshot_writer *w, const rpl_snapshot *m)
{
    unsigned char kernarg[28] = {1, 2, 3};
    const char code[] = "\x7f"
                        "ELF not really a code object";
    const uint32_t counter = 5, counter_after = 6;

    assert_ok(rpl_snapshot_writer_add(w, "kernarg.bin", kernarg, sizeof(kernarg)));
    assert_ok(rpl_snapshot_writer_add(w, "kernel.hsaco", code, sizeof(code)));
    stream_region(w, REGION_A, SIZE_A, false);
    stream_region(w, REGION_A, SIZE_A, true);
    stream_region(w, REGION_B, SIZE_B, false);
    assert_ok(rpl_snapshot_writer_add(w, m->globals[0].file, &counter, 4));
    assert_ok(rpl_snapshot_writer_add(w, m->globals[0].post_file, &counter_after, 4));
}

static void write_full(const char *dir)
{
    rpl_snapshot_writer *w;
    rpl_snapshot *m = full_meta();

    assert_ok(rpl_snapshot_writer_begin(&w, dir));
    write_files(w, m);
    assert_ok(rpl_snapshot_writer_commit(w, m));
    /* kernarg, code, 3 region images, 2 global images, memory_regions.json */
    assert_int_equal(m->nfiles, 8);
    rpl_snapshot_free(m);
}

static void assert_str_same(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

static void test_round_trip(void **state)
{
    rpl_snapshot *m = full_meta(), *s;
    const char *dir = TMP "/round";
    FILE *f;
    unsigned char buf[4096];

    (void)state;
    write_full(dir);
    assert_ok(rpl_snapshot_open(&s, dir));
    assert_ok(rpl_snapshot_verify(s));
    assert_string_equal(s->dir, dir);
    assert_int_equal(s->backend, m->backend);
    assert_string_equal(s->arch, m->arch);
    assert_string_equal(s->target, m->target);
    assert_string_equal(s->device_name, m->device_name);
    assert_string_equal(s->driver_version, m->driver_version);
    assert_string_equal(s->runtime_version, m->runtime_version);
    assert_string_equal(s->tool_version, m->tool_version);
    assert_string_equal(s->mangled_name, m->mangled_name);
    assert_string_equal(s->demangled_name, m->demangled_name);
    assert_string_equal(s->code_object_file, m->code_object_file);
    assert_string_equal(s->code_object_symbol, m->code_object_symbol);
    assert_memory_equal(s->grid, m->grid, sizeof(m->grid));
    assert_memory_equal(s->block, m->block, sizeof(m->block));
    assert_memory_equal(s->cluster, m->cluster, sizeof(m->cluster));
    assert_int_equal(s->dynamic_shared_bytes, m->dynamic_shared_bytes);
    assert_int_equal(s->static_shared_bytes, m->static_shared_bytes);
    assert_int_equal(s->private_segment_bytes, m->private_segment_bytes);
    assert_int_equal(s->kernel_object, m->kernel_object);
    assert_int_equal(s->setup_dims, m->setup_dims);
    assert_int_equal(s->kernarg_size, m->kernarg_size);
    assert_int_equal(s->kernarg_align, m->kernarg_align);
    assert_string_equal(s->kernarg_file, m->kernarg_file);
    assert_int_equal(s->nparams, m->nparams);
    for (size_t i = 0; i < m->nparams; i++) {
        assert_int_equal(s->params[i].offset, m->params[i].offset);
        assert_int_equal(s->params[i].size, m->params[i].size);
        assert_str_same(s->params[i].type, m->params[i].type);
        assert_int_equal(s->params[i].pointer, m->params[i].pointer);
        assert_int_equal(s->params[i].pointee, m->params[i].pointee);
    }
    assert_int_equal(s->dispatch_index, m->dispatch_index);
    assert_int_equal(s->capture_pid, m->capture_pid);
    assert_int_equal(s->aslr_disabled, m->aslr_disabled);
    assert_string_equal(s->captured_at, m->captured_at);
    assert_int_equal(s->nregions, m->nregions);
    for (size_t i = 0; i < m->nregions; i++) {
        assert_int_equal(s->regions[i].base, m->regions[i].base);
        assert_int_equal(s->regions[i].size, m->regions[i].size);
        assert_string_equal(s->regions[i].kind, m->regions[i].kind);
        assert_string_equal(s->regions[i].file, m->regions[i].file);
        assert_str_same(s->regions[i].post_file, m->regions[i].post_file);
        assert_int_equal(s->regions[i].dtype, m->regions[i].dtype);
        assert_int_equal(s->regions[i].written, m->regions[i].written);
    }
    assert_int_equal(s->nglobals, 1);
    assert_string_equal(s->globals[0].name, "counter");
    assert_int_equal(s->globals[0].address, m->globals[0].address);
    assert_int_equal(s->globals[0].size, 4);
    assert_string_equal(s->globals[0].file, "globals/0.bin");
    assert_string_equal(s->globals[0].post_file, "globals/post/0.bin");
    assert_int_equal(s->nfiles, 8);

    /* The streamed bytes come back. */
    assert_ok(rpl_snapshot_region_open(&f, s, 0, true));
    assert_int_equal(fseek(f, 1 << 20, SEEK_SET), 0);
    assert_int_equal(fread(buf, 1, sizeof(buf), f), sizeof(buf));
    for (size_t i = 0; i < sizeof(buf); i++)
        assert_int_equal(buf[i], pattern((1u << 20) + i, true));
    fclose(f);
    /* Region 1 has no post image. */
    assert_int_equal(rpl_snapshot_region_open(&f, s, 1, true), RPL_ENOTFOUND);
    assert_null(f);
    assert_ok(rpl_snapshot_global_open(&f, s, 0, true));
    assert_int_equal(fread(buf, 1, 8, f), 4);
    assert_int_equal(buf[0], 6);
    fclose(f);
    rpl_snapshot_free(s);
    rpl_snapshot_free(m);
}

/* Optional fields left out come back with their defaults. */
static void test_defaults(void **state)
{
    rpl_snapshot_writer *w;
    rpl_snapshot *m = calloc(1, sizeof(*m)), *s;
    const char *dir = TMP "/defaults";

    (void)state;
    assert_non_null(m);
    m->backend = RPL_SNAP_CUDA;
    m->arch = xstrdup("sm_90");
    m->mangled_name = xstrdup("k");
    m->code_object_file = xstrdup("kernel.cubin");
    m->code_object_symbol = xstrdup("k");
    m->grid[0] = m->grid[1] = m->grid[2] = 1;
    m->block[0] = m->block[1] = m->block[2] = 1;
    m->kernarg_file = xstrdup("kernarg.bin");
    assert_ok(rpl_snapshot_writer_begin(&w, dir));
    assert_ok(rpl_snapshot_writer_add(w, "kernarg.bin", "", 0));
    assert_ok(rpl_snapshot_writer_add(w, "kernel.cubin", "x", 1));
    assert_ok(rpl_snapshot_writer_commit(w, m));
    assert_ok(rpl_snapshot_open(&s, dir));
    assert_ok(rpl_snapshot_verify(s));
    assert_string_equal(s->target, "sm_90");
    assert_string_equal(s->demangled_name, "k");
    assert_null(s->device_name);
    assert_int_equal(s->setup_dims, 3);
    assert_int_equal(s->kernarg_align, 8);
    assert_int_equal(s->nregions, 0);
    assert_int_equal(s->nparams, 0);
    assert_int_equal(s->nglobals, 0);
    assert_int_equal(rpl_snapshot_find_region(s, 0x1000, 1), -1);
    rpl_snapshot_free(s);
    rpl_snapshot_free(m);
}

static void test_abort_removes_everything(void **state)
{
    rpl_snapshot_writer *w;
    rpl_snapshot *m = full_meta();
    const char *parent = TMP "/abort";

    (void)state;
    run("rm -rf '%s' && mkdir -p '%s'", parent, parent);
    assert_ok(rpl_snapshot_writer_begin(&w, TMP "/abort/snap"));
    write_files(w, m);
    /* One file left open mid-stream. */
    assert_ok(rpl_snapshot_writer_open(w, "extra/deep/file.bin"));
    assert_ok(rpl_snapshot_writer_write(w, "abc", 3));
    assert_int_equal(count_entries(parent), 1); /* the temporary directory */
    rpl_snapshot_writer_abort(w);
    assert_int_equal(count_entries(parent), 0);
    rpl_snapshot_writer_abort(NULL);
    rpl_snapshot_free(m);
}

/* A commit whose metadata names a file never written fails and leaves nothing. */
static void test_failed_commit_leaves_nothing(void **state)
{
    rpl_snapshot_writer *w;
    rpl_snapshot *m = full_meta();
    const char *parent = TMP "/badcommit";

    (void)state;
    run("rm -rf '%s' && mkdir -p '%s'", parent, parent);
    assert_ok(rpl_snapshot_writer_begin(&w, TMP "/badcommit/snap"));
    assert_int_equal(rpl_snapshot_writer_add(w, "kernarg.bin", "0123456789012345678901234567", 28),
                     0);
    assert_ok(rpl_snapshot_writer_add(w, "kernel.hsaco", "x", 1));
    assert_int_equal(rpl_snapshot_writer_commit(w, m), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "not written, its metadata is invalid"));
    assert_non_null(strstr(rpl_error_last()->message, "memory/region_7f0000000000.bin"));
    assert_int_equal(count_entries(parent), 0);
    assert_null(m->files); /* the caller's metadata is as it was */
    assert_int_equal(m->nfiles, 0);
    rpl_snapshot_free(m);

    /* Overlapping regions are refused at commit too. */
    m = full_meta();
    m->regions[1].base = REGION_A + 4096;
    free(m->regions[1].file);
    assert_ok(rpl_snapshot_region_path(&m->regions[1].file, REGION_A + 4096, false));
    assert_ok(rpl_snapshot_writer_begin(&w, TMP "/badcommit/snap"));
    write_files(w, m);
    assert_int_equal(rpl_snapshot_writer_commit(w, m), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "overlaps regions[0]"));
    assert_int_equal(count_entries(parent), 0);
    rpl_snapshot_free(m);
}

static void test_existing_target(void **state)
{
    rpl_snapshot_writer *w = NULL;
    rpl_snapshot *m = full_meta();
    const char *dir = TMP "/exists";

    (void)state;
    run("rm -rf '%s' && mkdir -p '%s' && touch '%s/keep'", dir, dir, dir);
    assert_int_equal(rpl_snapshot_writer_begin(&w, dir), RPL_EINPUT);
    assert_null(w);
    assert_non_null(strstr(rpl_error_last()->message, "already exists"));
    assert_int_equal(count_entries(dir), 1);

    /* A directory that appears while writing is not replaced, even an empty one. */
    run("rm -rf '%s'", dir);
    assert_ok(rpl_snapshot_writer_begin(&w, dir));
    write_files(w, m);
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_not_equal(rpl_snapshot_writer_commit(w, m), 0);
    assert_int_equal(count_entries(dir), 0);
    assert_false(temp_left(TMP, "exists.tmp."));
    rpl_snapshot_free(m);
}

static void test_writer_paths(void **state)
{
    rpl_snapshot_writer *w;
    rpl_snapshot *m = full_meta();
    static const char *const bad[] = {
        "../escape.bin", "/abs.bin", "a//b.bin",   "a/./b.bin",     "memory/../x",
        "a/b/",          "",         "sp ace.bin", "dispatch.json", "memory_regions.json"};

    (void)state;
    run("rm -rf '%s'", TMP "/paths");
    assert_ok(rpl_snapshot_writer_begin(&w, TMP "/paths/snap"));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(rpl_snapshot_writer_add(w, bad[i], "x", 1), RPL_EUSAGE);
        assert_false(exists(TMP "/escape.bin"));
    }
    assert_ok(rpl_snapshot_writer_add(w, "kernarg.bin", "x", 1));
    assert_int_equal(rpl_snapshot_writer_add(w, "kernarg.bin", "x", 1), RPL_EUSAGE);
    assert_int_equal(rpl_snapshot_writer_write(w, "x", 1), RPL_EUSAGE); /* nothing open */
    assert_int_equal(rpl_snapshot_writer_close(w), RPL_EUSAGE);
    assert_ok(rpl_snapshot_writer_open(w, "a.bin"));
    assert_int_equal(rpl_snapshot_writer_open(w, "b.bin"), RPL_EUSAGE); /* a.bin still open */
    assert_int_equal(rpl_snapshot_writer_commit(w, m), RPL_EUSAGE);
    assert_int_equal(count_entries(TMP "/paths"), 0);
    rpl_snapshot_free(m);
}

static void test_region_paths(void **state)
{
    char *p;

    (void)state;
    assert_ok(rpl_snapshot_region_path(&p, 0x7F00ABCD0000ull, false));
    assert_string_equal(p, "memory/region_7f00abcd0000.bin");
    free(p);
    assert_ok(rpl_snapshot_region_path(&p, 0, true));
    assert_string_equal(p, "memory/post/region_0.bin");
    free(p);
    assert_ok(rpl_snapshot_global_path(&p, 12, true));
    assert_string_equal(p, "globals/post/12.bin");
    free(p);
}

static void test_find_region(void **state)
{
    rpl_snapshot *s;

    (void)state;
    write_full(TMP "/find");
    assert_ok(rpl_snapshot_open(&s, TMP "/find"));
    assert_ok(rpl_snapshot_find_region(s, REGION_A, SIZE_A));
    assert_ok(rpl_snapshot_find_region(s, REGION_A + SIZE_A - 4, 4));
    assert_int_equal(rpl_snapshot_find_region(s, REGION_A + SIZE_A - 4, 5), -1); /* straddles */
    assert_int_equal(rpl_snapshot_find_region(s, REGION_A + SIZE_A, 1), -1);     /* the gap */
    assert_int_equal(rpl_snapshot_find_region(s, REGION_A - 1, 1), -1);
    assert_int_equal(rpl_snapshot_find_region(s, REGION_B, 1), 1);
    assert_int_equal(rpl_snapshot_find_region(s, REGION_B + SIZE_B - 1, 1), 1);
    assert_int_equal(rpl_snapshot_find_region(s, REGION_B + SIZE_B, 1), -1);
    assert_int_equal(rpl_snapshot_find_region(s, UINT64_MAX, 1), -1);
    rpl_snapshot_free(s);
}

/* Damage a fresh copy with a shell command; open or verify must name the problem. */
static void expect_damage(const char *name, const char *damage, bool at_verify, const char *want)
{
    char dir[256];
    rpl_snapshot *s = NULL;
    int rc;

    snprintf(dir, sizeof(dir), TMP "/damaged_%s", name);
    run("rm -rf '%s' && cp -r '%s' '%s' && cd '%s' && %s", dir, TMP "/round", dir, dir, damage);
    rc = rpl_snapshot_open(&s, dir);
    if (at_verify) {
        assert_int_equal(rc, 0);
        rc = rpl_snapshot_verify(s);
    }
    rpl_snapshot_free(s);
    assert_int_equal(rc, RPL_EINPUT);
    if (!strstr(rpl_error_last()->message, want))
        fail_msg("%s: message '%s' lacks '%s'", name, rpl_error_last()->message, want);
    if (!strchr(rpl_error_last()->message, '/'))
        fail_msg("%s: message '%s' names no file", name, rpl_error_last()->message);
}

static void test_damaged(void **state)
{
    (void)state;
    write_full(TMP "/round_src");
    run("rm -rf '%s' && cp -r '%s' '%s'", TMP "/round", TMP "/round_src", TMP "/round");
    expect_damage("truncated", "truncate -s 100 memory/region_7f0000000000.bin", false,
                  "region_7f0000000000.bin' is 100 bytes, dispatch.json records 3145728 "
                  "(truncated)");
    expect_damage("flipped",
                  "printf 'Z' | dd of=memory/post/region_7f0000000000.bin bs=1 "
                  "seek=1000 conv=notrunc 2>/dev/null",
                  true, "post/region_7f0000000000.bin' does not match its SHA-256");
    expect_damage("missing", "rm memory/region_7f0000400000.bin", false,
                  "region_7f0000400000.bin' is missing (dispatch.json lists it)");
    expect_damage("symlink", "rm kernel.hsaco && ln -s /etc/passwd kernel.hsaco", false,
                  "is a symbolic link");
    expect_damage("no_dispatch", "rm dispatch.json", false, "is not a snapshot");
    expect_damage("bad_json", "printf '{\"schema_version\": ' > memory_regions.json", false,
                  "memory_regions.json': malformed JSON");
    expect_damage("hex", "sed -i 's/\"0x7f0000400000\"/\"0x7g\"/' memory_regions.json", false,
                  "regions[1].base '0x7g' is not a hex address");
    expect_damage("version",
                  "sed -i 's/\"schema_version\":[[:space:]]*\"1.0\"/\"schema_version\": \"2.0\"/' "
                  "dispatch.json",
                  false, "schema_version '2.0' is not supported");
    expect_damage("escape", "sed -i 's#\"kernel.hsaco\"#\"../kernel.hsaco\"#g' dispatch.json",
                  false, "kernel.code_object '../kernel.hsaco' leaves or names its directory");
    expect_damage("unlisted",
                  "sed -i 's#\"path\":[[:space:]]*\"kernarg.bin\"#\"path\": \"kernarg2.bin\"#' "
                  "dispatch.json",
                  false, "kernarg.file names 'kernarg.bin', which files[] does not list");
    expect_damage("param_past_end",
                  "sed -i '0,/\"size\":[[:space:]]*28,/s//\"size\": 20,/' dispatch.json", false,
                  "kernarg.params[2] ends past the kernarg segment");
    expect_damage("block",
                  "sed -i 's/\"block\":[[:space:]]*\\[256, 2, 1\\]/\"block\": [1024, 2, 1]/' "
                  "dispatch.json",
                  false, "launch.block has more than 1024 threads");
    expect_damage("kind", "sed -i 's/\"kernarg\"/\"vram\"/' memory_regions.json", false,
                  "regions[1].kind 'vram' is not one of");
    expect_damage("file_name",
                  "sed -i 's#\"memory/region_7f0000400000.bin\"#\"memory/other.bin\"#' "
                  "memory_regions.json",
                  false, "regions[1].file must be \"memory/region_7f0000400000.bin\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_abort_removes_everything),
        cmocka_unit_test(test_failed_commit_leaves_nothing),
        cmocka_unit_test(test_existing_target),
        cmocka_unit_test(test_writer_paths),
        cmocka_unit_test(test_region_paths),
        cmocka_unit_test(test_find_region),
        cmocka_unit_test(test_damaged),
    };

    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0)
        return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
