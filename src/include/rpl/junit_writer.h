/*
 * A JUnit XML document (the testsuites/testsuite/testcase dialect that CI
 * systems read), built in memory with libxml2's xmlTextWriter and written
 * whole or not at all.  The element calls remember a libxml2 failure, so a
 * writer checks once, at rpl_junit_close().  The gate's JUnit and the
 * optimize pipeline's junit.xml are written with it.
 */
#ifndef RPL_JUNIT_WRITER_H
#define RPL_JUNIT_WRITER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rpl_junit rpl_junit;

/* The counts of a <testsuites> or <testsuite>. */
typedef struct rpl_junit_counts {
    size_t tests, failures, skipped;
    bool has_skipped; /* write the skipped attribute */
} rpl_junit_counts;

/*
 * Start a document for `path` (indented, UTF-8) and note the timestamp (UTC)
 * and host name that rpl_junit_testsuite() writes.
 */
int rpl_junit_open(rpl_junit **out, const char *path);

/*
 * Write the document to its path atomically (rpl_file_write_atomic) and free
 * the writer.  Fails with RPL_ERROR, writing nothing, when any call on it
 * failed.
 */
int rpl_junit_close(rpl_junit *j);
/* Free the writer without writing anything (the caller failed mid-document). */
void rpl_junit_discard(rpl_junit *j);

/* An element, an attribute (NULL is written as ""), and text content. */
void rpl_junit_start(rpl_junit *j, const char *element);
void rpl_junit_end(rpl_junit *j);
void rpl_junit_attr(rpl_junit *j, const char *name, const char *value);
void rpl_junit_attr_count(rpl_junit *j, const char *name, size_t n);
void rpl_junit_attr_seconds(rpl_junit *j, const char *name, double seconds);
void rpl_junit_text(rpl_junit *j, const char *text);
/* The line "[[ATTACHMENT|<path>]]" that CI systems link to the file. */
void rpl_junit_attachment(rpl_junit *j, const char *path);

/*
 * Start <testsuites> with name, tests, failures, errors="0" and skipped;
 * with a NULL name, with no attributes.
 */
void rpl_junit_testsuites(rpl_junit *j, const char *name, const rpl_junit_counts *c);
/*
 * Start <testsuite> with name, tests, failures, errors="0", skipped, time,
 * timestamp and hostname; the caller adds what follows (id, package).
 */
void rpl_junit_testsuite(rpl_junit *j, const char *name, const rpl_junit_counts *c, double seconds);
/* Its <system-out> of attachment lines and an empty <system-err>, and its end. */
void rpl_junit_testsuite_end(rpl_junit *j, const char *const *attachments, size_t n);

/* <property name=... value=...>, the value printf-formatted with the second. */
void rpl_junit_property(rpl_junit *j, const char *name, const char *value);
void rpl_junit_propertyf(rpl_junit *j, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* <failure type message>text</failure>, <skipped message/>. */
void rpl_junit_failure(rpl_junit *j, const char *type, const char *message, const char *text);
void rpl_junit_skipped(rpl_junit *j, const char *message);
/* <system-out>: `text` (may be NULL), then the attachment lines. */
void rpl_junit_system_out(rpl_junit *j, const char *text, const char *const *attachments, size_t n);

#endif
