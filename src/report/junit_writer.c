/* JUnit XML documents with libxml2's xmlTextWriter (see rpl/junit_writer.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libxml/xmlwriter.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/junit_writer.h"

#define X(s) BAD_CAST(s)

struct rpl_junit {
    xmlBufferPtr buf;
    xmlTextWriterPtr w;
    char *path;
    char stamp[32];
    char host[256];
    bool bad; /* a libxml2 call failed */
};

static void junit_free(rpl_junit *j)
{
    if (j->w)
        xmlFreeTextWriter(j->w);
    if (j->buf)
        xmlBufferFree(j->buf);
    free(j->path);
    free(j);
}

int rpl_junit_open(rpl_junit **out, const char *path)
{
    rpl_junit *j = calloc(1, sizeof(*j));
    time_t now = time(NULL);
    struct tm tm;

    *out = NULL;
    if (!j)
        return rpl_error_oom();
    if (!(j->path = strdup(path)) || !(j->buf = xmlBufferCreate()) ||
        !(j->w = xmlNewTextWriterMemory(j->buf, 0))) {
        junit_free(j);
        return rpl_error_oom();
    }
    gmtime_r(&now, &tm);
    strftime(j->stamp, sizeof(j->stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    if (gethostname(j->host, sizeof(j->host)) != 0 || !j->host[0])
        snprintf(j->host, sizeof(j->host), "localhost");
    j->host[sizeof(j->host) - 1] = '\0';
    xmlTextWriterSetIndent(j->w, 1);
    j->bad |= xmlTextWriterStartDocument(j->w, NULL, "UTF-8", NULL) < 0;
    *out = j;
    return 0;
}

int rpl_junit_close(rpl_junit *j)
{
    int rc;

    j->bad |= xmlTextWriterEndDocument(j->w) < 0;
    /* Freeing the writer flushes what it holds into the buffer. */
    xmlFreeTextWriter(j->w);
    j->w = NULL;
    if (j->bad)
        rc = rpl_error_set(RPL_ERROR, "libxml2 could not build the JUnit document for '%s'",
                           j->path);
    else
        rc = rpl_file_write_atomic(j->path, xmlBufferContent(j->buf),
                                   (size_t)xmlBufferLength(j->buf));
    junit_free(j);
    return rc;
}

void rpl_junit_discard(rpl_junit *j)
{
    if (j)
        junit_free(j);
}

void rpl_junit_start(rpl_junit *j, const char *element)
{
    j->bad |= xmlTextWriterStartElement(j->w, X(element)) < 0;
}

void rpl_junit_end(rpl_junit *j)
{
    j->bad |= xmlTextWriterEndElement(j->w) < 0;
}

void rpl_junit_attr(rpl_junit *j, const char *name, const char *value)
{
    j->bad |= xmlTextWriterWriteAttribute(j->w, X(name), X(value ? value : "")) < 0;
}

void rpl_junit_attr_count(rpl_junit *j, const char *name, size_t n)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%zu", n);
    rpl_junit_attr(j, name, buf);
}

void rpl_junit_attr_seconds(rpl_junit *j, const char *name, double seconds)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%.3f", seconds);
    rpl_junit_attr(j, name, buf);
}

void rpl_junit_text(rpl_junit *j, const char *text)
{
    if (text)
        j->bad |= xmlTextWriterWriteString(j->w, X(text)) < 0;
}

void rpl_junit_attachment(rpl_junit *j, const char *path)
{
    rpl_junit_text(j, "[[ATTACHMENT|");
    rpl_junit_text(j, path);
    rpl_junit_text(j, "]]\n");
}

static void counts(rpl_junit *j, const rpl_junit_counts *c)
{
    rpl_junit_attr_count(j, "tests", c->tests);
    rpl_junit_attr_count(j, "failures", c->failures);
    rpl_junit_attr(j, "errors", "0");
    if (c->has_skipped)
        rpl_junit_attr_count(j, "skipped", c->skipped);
}

void rpl_junit_testsuites(rpl_junit *j, const char *name, const rpl_junit_counts *c)
{
    rpl_junit_start(j, "testsuites");
    if (name) {
        rpl_junit_attr(j, "name", name);
        counts(j, c);
    }
}

void rpl_junit_testsuite(rpl_junit *j, const char *name, const rpl_junit_counts *c, double seconds)
{
    rpl_junit_start(j, "testsuite");
    rpl_junit_attr(j, "name", name);
    counts(j, c);
    rpl_junit_attr_seconds(j, "time", seconds);
    rpl_junit_attr(j, "timestamp", j->stamp);
    rpl_junit_attr(j, "hostname", j->host);
}

void rpl_junit_testsuite_end(rpl_junit *j, const char *const *attachments, size_t n)
{
    rpl_junit_system_out(j, NULL, attachments, n);
    rpl_junit_start(j, "system-err");
    rpl_junit_end(j);
    rpl_junit_end(j);
}

void rpl_junit_property(rpl_junit *j, const char *name, const char *value)
{
    rpl_junit_start(j, "property");
    rpl_junit_attr(j, "name", name);
    rpl_junit_attr(j, "value", value);
    rpl_junit_end(j);
}

void rpl_junit_propertyf(rpl_junit *j, const char *name, const char *fmt, ...)
{
    char value[384]; /* any double in %f */
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(value, sizeof(value), fmt, ap);
    va_end(ap);
    rpl_junit_property(j, name, value);
}

void rpl_junit_failure(rpl_junit *j, const char *type, const char *message, const char *text)
{
    rpl_junit_start(j, "failure");
    rpl_junit_attr(j, "type", type);
    rpl_junit_attr(j, "message", message);
    rpl_junit_text(j, text);
    rpl_junit_end(j);
}

void rpl_junit_skipped(rpl_junit *j, const char *message)
{
    rpl_junit_start(j, "skipped");
    rpl_junit_attr(j, "message", message);
    rpl_junit_end(j);
}

void rpl_junit_system_out(rpl_junit *j, const char *text, const char *const *attachments, size_t n)
{
    rpl_junit_start(j, "system-out");
    rpl_junit_text(j, text);
    for (size_t i = 0; i < n; i++)
        rpl_junit_attachment(j, attachments[i]);
    rpl_junit_end(j);
}
