/*
 * A child program for test_spawn: each argument is one action, done in order.
 *   o:TEXT  e:TEXT   write TEXT to stdout / stderr
 *   O:N     E:N      write N pattern bytes (see pattern()) to stdout / stderr
 *   B:N              write N pattern bytes to each, interleaved in 4 KiB pieces
 *   env:NAME         print NAME's value (or "<unset>") on stdout
 *   envcount:NAME    print how many environ entries set NAME
 *   cwd              print the working directory
 *   sigpipe          print "default" or "ignored" for SIGPIPE's disposition
 *   ignterm          ignore SIGTERM
 *   close            close stdout and stderr
 *   sleep:MS         sleep
 *   raise:SIG        raise signal number SIG
 *   exit:CODE        exit with CODE
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char pattern(size_t i)
{
    return (char)('a' + i % 26);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            exit(90);
        p += w;
        n -= (size_t)w;
    }
}

static void write_pattern(int fd, size_t from, size_t n)
{
    char buf[4096];

    for (size_t i = 0; i < n; i++)
        buf[i] = pattern(from + i);
    write_all(fd, buf, n);
}

static void write_pattern_stream(int fd, size_t total)
{
    for (size_t done = 0; done < total; done += 4096)
        write_pattern(fd, done, total - done < 4096 ? total - done : 4096);
}

static void both(size_t total)
{
    for (size_t done = 0; done < total; done += 4096) {
        size_t n = total - done < 4096 ? total - done : 4096;
        write_pattern(STDERR_FILENO, done, n);
        write_pattern(STDOUT_FILENO, done, n);
    }
}

static void print(const char *s)
{
    write_all(STDOUT_FILENO, s, strlen(s));
}

static void envcount(const char *name)
{
    size_t n = strlen(name), count = 0;
    char text[32];

    for (char **e = environ; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            count++;
    snprintf(text, sizeof(text), "%zu", count);
    print(text);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void act(const char *a)
{
    char cwd[4096];
    struct sigaction sa;

    if (strncmp(a, "o:", 2) == 0)
        print(a + 2);
    else if (strncmp(a, "e:", 2) == 0)
        write_all(STDERR_FILENO, a + 2, strlen(a + 2));
    else if (strncmp(a, "O:", 2) == 0)
        write_pattern_stream(STDOUT_FILENO, strtoul(a + 2, NULL, 10));
    else if (strncmp(a, "E:", 2) == 0)
        write_pattern_stream(STDERR_FILENO, strtoul(a + 2, NULL, 10));
    else if (strncmp(a, "B:", 2) == 0)
        both(strtoul(a + 2, NULL, 10));
    else if (strncmp(a, "env:", 4) == 0)
        print(getenv(a + 4) ? getenv(a + 4) : "<unset>");
    else if (strncmp(a, "envcount:", 9) == 0)
        envcount(a + 9);
    else if (strcmp(a, "cwd") == 0)
        print(getcwd(cwd, sizeof(cwd)) ? cwd : "<error>");
    else if (strcmp(a, "sigpipe") == 0) {
        sigaction(SIGPIPE, NULL, &sa);
        print(sa.sa_handler == SIG_IGN ? "ignored" : "default");
    } else if (strcmp(a, "ignterm") == 0)
        signal(SIGTERM, SIG_IGN);
    else if (strcmp(a, "close") == 0) {
        close(STDOUT_FILENO);
        close(STDERR_FILENO);
    } else if (strncmp(a, "sleep:", 6) == 0)
        sleep_ms(strtol(a + 6, NULL, 10));
    else if (strncmp(a, "raise:", 6) == 0)
        raise(atoi(a + 6));
    else if (strncmp(a, "exit:", 5) == 0)
        exit(atoi(a + 5));
    else
        exit(91);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        act(argv[i]);
    return 0;
}
