#ifndef SECTIONCTL_BASELINE_H
#define SECTIONCTL_BASELINE_H

/*
 * The benchmark's baseline: what a C program calling the SQLite C API directly does, with the
 * pragmas the Repository uses (WAL, synchronous=FULL, foreign_keys=ON), on a sectionctl database
 * file. Every function returns an SQLite result code (SQLITE_OK on success); after a failure,
 * baseline_error_message() says what went wrong.
 */

#include <stdint.h>

typedef struct baseline_connection baseline_connection;

/// Opens an existing database at `path` and sets the pragmas. Returns NULL on failure, with a
/// message in `error` (at most `error_size` bytes, always terminated).
baseline_connection *baseline_open(const char *path, char *error, int error_size);

/// Closes the connection and its prepared statements. Accepts NULL.
void baseline_close(baseline_connection *connection);

/// The version of the SQLite library linked (the one the Repository uses too), e.g. "3.40.1".
const char *baseline_sqlite_version(void);

/// The message of the connection's last failure.
const char *baseline_error_message(const baseline_connection *connection);

/// Runs SQL that returns no rows (one or more statements).
int baseline_execute(baseline_connection *connection, const char *sql);

/// The first column of the first row of `sql` as an integer, in `value` (0 when there is none).
int baseline_query_int(baseline_connection *connection, const char *sql, int64_t *value);

/// Appends `count` text rows titled "Row N" to a section, in one transaction with one prepared
/// INSERT: the i-th gets position `first_position + i * step`.
int baseline_fill_section(baseline_connection *connection, int64_t section_id, int64_t count,
                          int64_t first_position, int64_t step);

/// The id of the row at the first (`last` = 0) or last (`last` = 1) position of a section.
int baseline_end_row(baseline_connection *connection, int64_t section_id, int last, int64_t *row_id,
                     int64_t *position);

/// One single-row UPDATE of a row's position, in its own transaction
/// (BEGIN IMMEDIATE; UPDATE rows SET position = ? WHERE id = ?; COMMIT).
int baseline_update_position(baseline_connection *connection, int64_t row_id, int64_t position);

/// `count` single-row position UPDATEs, all in one transaction.
int baseline_update_positions(baseline_connection *connection, const int64_t *row_ids,
                              const int64_t *positions, int64_t count);

/// Inserts `records` sections into a list, each with `fields` field rows (label and value), in
/// one transaction with two prepared INSERTs: the shape a records import produces. Sections
/// get positions after `first_position` in steps of `step`, rows likewise within each section.
/// With `as_sectionctl` (sectionctl's schema) the transaction is marked as sectionctl's own, as
/// an import's is; 0 for the plain tables of baseline_create_plain().
int baseline_insert_records(baseline_connection *connection, int64_t list_id, int64_t records,
                            int64_t fields, int64_t first_position, int64_t step, int as_sectionctl);

/// Creates a new database at `path` in WAL mode holding plain tables `lists`, `sections` and
/// `rows`: the same columns, constraints and unique indexes as sectionctl's, without its
/// triggers, rank tables, journal or undo history; and the list `default` (id 1). On failure
/// returns an SQLite code and writes a message in `error`.
int baseline_create_plain(const char *path, char *error, int error_size);

/// Appends `count` sections to a list, each holding one text row, in one transaction marked as
/// sectionctl's own (so the schema's triggers keep counts and ranks and the undo history files
/// one step): section i titled "Section i" at `first_position + i * step`, its row "Row i"
/// (i from 0; the section ids of the list must be consecutive and above every other's, as
/// they are in a new file).
int baseline_fill_sections(baseline_connection *connection, int64_t list_id, int64_t count,
                           int64_t first_position, int64_t step);

/// Reads a whole list in order in one read transaction, as a listing or an export does: one
/// prepared SELECT of every section joined with its rows (ids, titles, kinds, values), each
/// column fetched as the statement steps. `rows` gets the number of result rows, `bytes` the
/// number of text bytes fetched.
int baseline_select_list(baseline_connection *connection, int64_t list_id, int64_t *rows, int64_t *bytes);

/// The first column of the first row of `sql` as an integer (0 when there is none), read from
/// any SQLite file at `path` opened read-only. On failure writes a message in `error`.
int baseline_query_file_int(const char *path, const char *sql, int64_t *value, char *error, int error_size);

/// Copies the write-ahead log into the database file and truncates the log to zero bytes.
int baseline_checkpoint_truncate(baseline_connection *connection);

#endif
