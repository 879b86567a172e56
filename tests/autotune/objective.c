/*
 * TEST DOUBLE, not a GPU program: the synthetic objective of the autotune
 * tests.  Its "kernel" runtime is a known function of its parameters, and it
 * reports it the way the rocprofv3 test double (tests/profile/fake-rocprofv3,
 * FAKE_ROCPROF_MODE=app) expects: a fixture description written to
 * $FAKE_ROCPROF_APP_DESC, which the double turns into the rocpd database
 * rocprofv3 would write.
 *
 *   objective [--random SALT] [--launches N] [--sleep-ms MS] [--log FILE]
 *             [--fail-if NAME=VALUE] [--sleep-if NAME=VALUE] [--extra-ns NS]
 *             [--program FILE] [--kernel-name NAME] [--jitter FRAC] NAME=VALUE...
 *
 * Known objective (ns): with b = log2 BM, n = log2 BN, t = log2 TM, u = U,
 *   80000 (1 + 0.10 (b-6)^2 + 0.07 (n-6)^2 + 0.06 (t-2)^2 + 0.05 (u-3)^2
 *          + 0.03 (b-6)(t-2) + 0.01 |n-6|^3)
 * least at BM=64 BN=64 TM=4 U=3 (80 us), every neighbour at least 5 %
 * slower.  --random SALT: a pseudo-random runtime from 50 to 150 us per
 * configuration instead (no structure for a model to find).  Dispatches have
 * 1 % jitter.  --log appends "start_ns end_ns ROCR_VISIBLE_DEVICES LAUNCHED
 * pid" (monotonic clock) for the tests of --jobs and --launcher.
 * --fail-if exits 3 and --sleep-if sleeps 5 s (for --timeout) when a
 * parameter has that value; --extra-ns adds to the runtime (the compile-time
 * parameter of tests/autotune/fake-build.sh); --program names the built
 * program a GPU run would time, and is otherwise ignored; --kernel-name
 * names the kernel (default objective_kernel); --jitter sets the dispatches'
 * jitter (default 0.01; 0.5 makes every measurement unstable).
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PARAMS 16

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double param(char **names, double *vals, int n, const char *name, double dflt)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return vals[i];
    return dflt;
}

/* Does some parameter have the value "NAME=VALUE" names? */
static int has_value(char **names, double *vals, int n, const char *which)
{
    for (int i = 0; which && i < n; i++) {
        char want[128];
        snprintf(want, sizeof(want), "%s=%g", names[i], vals[i]);
        if (strcmp(want, which) == 0)
            return 1;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: objective [--random SALT] [--launches N] [--sleep-ms MS] [--log FILE] "
            "[--fail-if NAME=VALUE] [--sleep-if NAME=VALUE] [--extra-ns NS] [--program FILE] "
            "[--kernel-name NAME] [--jitter FRAC] NAME=VALUE...\n");
    return 64;
}

int main(int argc, char **argv)
{
    char *names[MAX_PARAMS], *fail_if = NULL, *sleep_if = NULL, *log = NULL;
    double vals[MAX_PARAMS], ns;
    const char *desc = getenv("FAKE_ROCPROF_APP_DESC"), *kernel = "objective_kernel";
    long launches = 21, sleep_ms = 0, salt = -1;
    double extra_ns = 0, jitter = 0.01;
    uint64_t h = 1469598103934665603ull;
    int n = 0;
    int64_t start = now_ns();
    FILE *f;

    for (int i = 1; i < argc; i++) {
        char *eq;
        if (strcmp(argv[i], "--random") == 0 && i + 1 < argc)
            salt = atol(argv[++i]);
        else if (strcmp(argv[i], "--launches") == 0 && i + 1 < argc)
            launches = atol(argv[++i]);
        else if (strcmp(argv[i], "--sleep-ms") == 0 && i + 1 < argc)
            sleep_ms = atol(argv[++i]);
        else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc)
            log = argv[++i];
        else if (strcmp(argv[i], "--fail-if") == 0 && i + 1 < argc)
            fail_if = argv[++i];
        else if (strcmp(argv[i], "--sleep-if") == 0 && i + 1 < argc)
            sleep_if = argv[++i];
        else if (strcmp(argv[i], "--extra-ns") == 0 && i + 1 < argc)
            extra_ns = atof(argv[++i]);
        else if (strcmp(argv[i], "--program") == 0 && i + 1 < argc)
            i++;
        else if (strcmp(argv[i], "--kernel-name") == 0 && i + 1 < argc)
            kernel = argv[++i];
        else if (strcmp(argv[i], "--jitter") == 0 && i + 1 < argc)
            jitter = atof(argv[++i]);
        else if ((eq = strchr(argv[i], '=')) != NULL && n < MAX_PARAMS) {
            *eq = '\0'; /* argv[i] is the name from here on */
            names[n] = argv[i];
            vals[n++] = atof(eq + 1);
        } else {
            return usage();
        }
    }
    if (!desc || launches < 1)
        return usage();
    for (int i = 0; i < n; i++)
        h = splitmix(h ^ (uint64_t)(int64_t)(vals[i] * 1000) ^ (uint64_t)i << 56);
    if (salt >= 0) {
        ns = 50000 + 100000 * (double)(splitmix(h ^ (uint64_t)salt) >> 11) / 9007199254740992.0;
    } else {
        double b = log2(param(names, vals, n, "BM", 64)) - 6;
        double c = log2(param(names, vals, n, "BN", 64)) - 6;
        double t = log2(param(names, vals, n, "TM", 4)) - 2;
        double u = param(names, vals, n, "U", 3) - 3;
        ns = 80000 * (1 + 0.10 * b * b + 0.07 * c * c + 0.06 * t * t + 0.05 * u * u + 0.03 * b * t +
                      0.01 * fabs(c * c * c));
    }
    ns += extra_ns;
    if (has_value(names, vals, n, sleep_if))
        sleep_ms = 5000;
    if (sleep_ms > 0) {
        struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
    }
    if (log) {
        const char *vis = getenv("ROCR_VISIBLE_DEVICES"), *launched = getenv("LAUNCHED");
        char line[256];
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
        int len = snprintf(line, sizeof(line), "%lld %lld %s %s %ld\n", (long long)start,
                           (long long)now_ns(), vis && vis[0] ? vis : "-",
                           launched && launched[0] ? launched : "-", (long)getpid());
        /* One write of a short line: O_APPEND keeps lines of parallel runs whole. */
        if (fd < 0 || write(fd, line, (size_t)len) != len)
            return 70;
        close(fd);
    }
    if (has_value(names, vals, n, fail_if)) {
        fprintf(stderr, "objective: failing on purpose at %s\n", fail_if);
        return 3;
    }
    if (!(f = fopen(desc, "w")))
        return 71;
    fprintf(f,
            "{\"schema_version\": \"1.0\",\n"
            " \"description\": \"synthetic autotune objective (test double output)\",\n"
            " \"process\": {\"pid\": %ld, \"ppid\": 1, \"command\": \"./objective\", "
            "\"hostname\": \"fake-node\"},\n"
            " \"agents\": [{\"alias\": \"gpu\", \"type\": \"GPU\", \"name\": \"gfx942\", "
            "\"product_name\": \"AMD Instinct MI300X\", \"extdata\": {\"cu_count\": 304, "
            "\"simd_per_cu\": 4, \"wave_front_size\": 64, \"max_waves_per_cu\": 32, "
            "\"gfx_target_version\": 90402}}],\n"
            " \"kernels\": [{\"alias\": \"k\", \"name\": \"_Z%zu%sPf\", "
            "\"display_name\": \"%s(float*)\", \"vgprs\": 32, \"sgprs\": 16}],\n"
            " \"queues\": [\"Queue 1\"],\n"
            " \"dispatches\": [{\"kernel\": \"k\", \"queue\": 1, \"count\": %ld, \"start\": "
            "1000000, \"duration_ns\": %.0f, \"gap_ns\": 1000, \"jitter\": %g, \"seed\": "
            "%llu}]}\n",
            (long)getpid(), strlen(kernel), kernel, kernel, launches, ns, jitter,
            (unsigned long long)(h % 1000000 + 1));
    return fclose(f) == 0 ? 0 : 72;
}
