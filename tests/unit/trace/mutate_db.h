/* Test helper: a damaged copy of a good rocpd database. */
#ifndef RPL_TEST_MUTATE_DB_H
#define RPL_TEST_MUTATE_DB_H

/*
 * Copy `from` to `to` and run `sql` there, "{{uuid}}" replaced by the table
 * suffix from rocpd_metadata.  Fails the running cmocka test on any error.
 */
void mutate_db(const char *from, const char *to, const char *sql);

/* The table suffix (rocpd_metadata's uuid) of the database at `path`, in a static buffer. */
const char *db_uuid(const char *path);

#endif
