#include "baseline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct baseline_connection {
    sqlite3 *db;
    /// Prepared once, reused by every call.
    sqlite3_stmt *begin;
    sqlite3_stmt *commit;
    sqlite3_stmt *update_position;
    char message[512];
};

static int fail(baseline_connection *connection, int code, const char *what) {
    snprintf(connection->message, sizeof connection->message, "SQLite error %d: %s (%s)",
             sqlite3_extended_errcode(connection->db), sqlite3_errmsg(connection->db), what);
    return code;
}

static int prepare(baseline_connection *connection, const char *sql, sqlite3_stmt **statement) {
    int code = sqlite3_prepare_v3(connection->db, sql, -1, SQLITE_PREPARE_PERSISTENT, statement, NULL);
    return code == SQLITE_OK ? SQLITE_OK : fail(connection, code, sql);
}

/// Steps a statement that returns no rows, then resets it.
static int run(baseline_connection *connection, sqlite3_stmt *statement) {
    int code = sqlite3_step(statement);
    if (code != SQLITE_DONE) fail(connection, code, sqlite3_sql(statement));
    sqlite3_reset(statement);
    return code == SQLITE_DONE ? SQLITE_OK : code;
}

static void rollback(baseline_connection *connection) {
    if (!sqlite3_get_autocommit(connection->db)) {
        sqlite3_exec(connection->db, "ROLLBACK", NULL, NULL, NULL);
    }
}

baseline_connection *baseline_open(const char *path, char *error, int error_size) {
    baseline_connection *connection = calloc(1, sizeof *connection);
    if (connection == NULL) {
        snprintf(error, (size_t)error_size, "out of memory");
        return NULL;
    }
    int code = sqlite3_open_v2(path, &connection->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (code == SQLITE_OK) {
        sqlite3_busy_timeout(connection->db, 5000);
        code = sqlite3_exec(connection->db,
                            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;",
                            NULL, NULL, NULL);
    }
    if (code == SQLITE_OK) code = prepare(connection, "BEGIN IMMEDIATE", &connection->begin);
    if (code == SQLITE_OK) code = prepare(connection, "COMMIT", &connection->commit);
    if (code == SQLITE_OK) {
        code = prepare(connection, "UPDATE rows SET position = ? WHERE id = ?", &connection->update_position);
    }
    if (code != SQLITE_OK) {
        snprintf(error, (size_t)error_size, "%s: %s", path,
                 connection->message[0] ? connection->message : sqlite3_errmsg(connection->db));
        baseline_close(connection);
        return NULL;
    }
    return connection;
}

void baseline_close(baseline_connection *connection) {
    if (connection == NULL) return;
    sqlite3_finalize(connection->begin);
    sqlite3_finalize(connection->commit);
    sqlite3_finalize(connection->update_position);
    sqlite3_close_v2(connection->db);
    free(connection);
}

const char *baseline_sqlite_version(void) {
    return sqlite3_libversion();
}

const char *baseline_error_message(const baseline_connection *connection) {
    return connection->message;
}

int baseline_execute(baseline_connection *connection, const char *sql) {
    int code = sqlite3_exec(connection->db, sql, NULL, NULL, NULL);
    return code == SQLITE_OK ? SQLITE_OK : fail(connection, code, sql);
}

int baseline_query_int(baseline_connection *connection, const char *sql, int64_t *value) {
    sqlite3_stmt *statement = NULL;
    int code = prepare(connection, sql, &statement);
    if (code != SQLITE_OK) return code;
    code = sqlite3_step(statement);
    *value = code == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    if (code == SQLITE_ROW || code == SQLITE_DONE) {
        code = SQLITE_OK;
    } else {
        fail(connection, code, sql);
    }
    sqlite3_finalize(statement);
    return code;
}

int baseline_fill_section(baseline_connection *connection, int64_t section_id, int64_t count,
                          int64_t first_position, int64_t step) {
    sqlite3_stmt *insert = NULL;
    int code = prepare(connection, "INSERT INTO rows (section_id, position, kind, title) VALUES (?, ?, 'text', ?)",
                       &insert);
    if (code == SQLITE_OK) code = run(connection, connection->begin);
    char title[32];
    for (int64_t i = 0; code == SQLITE_OK && i < count; i++) {
        int length = snprintf(title, sizeof title, "Row %lld", (long long)i);
        sqlite3_bind_int64(insert, 1, section_id);
        sqlite3_bind_int64(insert, 2, first_position + i * step);
        sqlite3_bind_text(insert, 3, title, length, SQLITE_STATIC);
        code = run(connection, insert);
    }
    if (code == SQLITE_OK) {
        code = run(connection, connection->commit);
    } else {
        rollback(connection);
    }
    sqlite3_finalize(insert);
    return code;
}

int baseline_end_row(baseline_connection *connection, int64_t section_id, int last, int64_t *row_id,
                     int64_t *position) {
    sqlite3_stmt *statement = NULL;
    const char *sql = last ? "SELECT id, position FROM rows WHERE section_id = ? ORDER BY position DESC LIMIT 1"
                           : "SELECT id, position FROM rows WHERE section_id = ? ORDER BY position ASC LIMIT 1";
    int code = prepare(connection, sql, &statement);
    if (code != SQLITE_OK) return code;
    sqlite3_bind_int64(statement, 1, section_id);
    code = sqlite3_step(statement);
    if (code == SQLITE_ROW) {
        *row_id = sqlite3_column_int64(statement, 0);
        *position = sqlite3_column_int64(statement, 1);
        code = SQLITE_OK;
    } else {
        code = fail(connection, code == SQLITE_DONE ? SQLITE_NOTFOUND : code, sql);
    }
    sqlite3_finalize(statement);
    return code;
}

int baseline_update_position(baseline_connection *connection, int64_t row_id, int64_t position) {
    int code = run(connection, connection->begin);
    if (code != SQLITE_OK) return code;
    sqlite3_bind_int64(connection->update_position, 1, position);
    sqlite3_bind_int64(connection->update_position, 2, row_id);
    code = run(connection, connection->update_position);
    if (code == SQLITE_OK) code = run(connection, connection->commit);
    if (code != SQLITE_OK) rollback(connection);
    return code;
}

int baseline_update_positions(baseline_connection *connection, const int64_t *row_ids,
                              const int64_t *positions, int64_t count) {
    int code = run(connection, connection->begin);
    for (int64_t i = 0; code == SQLITE_OK && i < count; i++) {
        sqlite3_bind_int64(connection->update_position, 1, positions[i]);
        sqlite3_bind_int64(connection->update_position, 2, row_ids[i]);
        code = run(connection, connection->update_position);
    }
    if (code == SQLITE_OK) {
        code = run(connection, connection->commit);
    } else {
        rollback(connection);
    }
    return code;
}

/* Rows per multi-row INSERT, as the Repository's bulk appender writes them (BulkAppender.batchSize). */
#define BASELINE_BATCH 50

static int flush_rows(baseline_connection *connection, sqlite3_stmt *batch, sqlite3_stmt *single, int64_t *section_ids,
                      int64_t *positions, char (*labels)[32], int *label_lengths, char (*values)[48], int *value_lengths,
                      int count) {
    int code = SQLITE_OK;
    if (count == BASELINE_BATCH) {
        for (int i = 0; i < count; i++) {
            sqlite3_bind_int64(batch, i * 4 + 1, section_ids[i]);
            sqlite3_bind_int64(batch, i * 4 + 2, positions[i]);
            sqlite3_bind_text(batch, i * 4 + 3, labels[i], label_lengths[i], SQLITE_STATIC);
            sqlite3_bind_text(batch, i * 4 + 4, values[i], value_lengths[i], SQLITE_STATIC);
        }
        return run(connection, batch);
    }
    for (int i = 0; code == SQLITE_OK && i < count; i++) {
        sqlite3_bind_int64(single, 1, section_ids[i]);
        sqlite3_bind_int64(single, 2, positions[i]);
        sqlite3_bind_text(single, 3, labels[i], label_lengths[i], SQLITE_STATIC);
        sqlite3_bind_text(single, 4, values[i], value_lengths[i], SQLITE_STATIC);
        code = run(connection, single);
    }
    return code;
}

/* Inserts `records` sections of `fields` field rows the way an import does: in one transaction
 * (on sectionctl's schema marked as sectionctl's own, journal_writer.active, so the same triggers
 * run), rows fifty to a multi-row INSERT, the remainder one by one. */
int baseline_insert_records(baseline_connection *connection, int64_t list_id, int64_t records,
                            int64_t fields, int64_t first_position, int64_t step, int as_sectionctl) {
    sqlite3_stmt *insert_section = NULL;
    sqlite3_stmt *insert_row = NULL;
    sqlite3_stmt *insert_batch = NULL;
    int code = prepare(connection, "INSERT INTO sections (list_id, position, title) VALUES (?, ?, ?)",
                       &insert_section);
    if (code == SQLITE_OK) {
        code = prepare(connection,
                       "INSERT INTO rows (section_id, position, kind, title, value) VALUES (?, ?, 'field', ?, ?)",
                       &insert_row);
    }
    if (code == SQLITE_OK) {
        char sql[4096] = "INSERT INTO rows (section_id, position, kind, title, value) VALUES ";
        for (int i = 0; i < BASELINE_BATCH; i++) strcat(sql, i == 0 ? "(?, ?, 'field', ?, ?)" : ", (?, ?, 'field', ?, ?)");
        code = prepare(connection, sql, &insert_batch);
    }
    if (code == SQLITE_OK) code = run(connection, connection->begin);
    if (code == SQLITE_OK && as_sectionctl) {
        code = sqlite3_exec(connection->db, "UPDATE journal_writer SET active = 1, step = step + 1 WHERE id = 1", NULL, NULL, NULL);
    }
    char title[48];
    int64_t section_ids[BASELINE_BATCH];
    int64_t positions[BASELINE_BATCH];
    char labels[BASELINE_BATCH][32];
    int label_lengths[BASELINE_BATCH];
    char values[BASELINE_BATCH][48];
    int value_lengths[BASELINE_BATCH];
    int pending = 0;
    for (int64_t record = 0; code == SQLITE_OK && record < records; record++) {
        int length = snprintf(title, sizeof title, "Record %lld", (long long)(record + 1));
        sqlite3_bind_int64(insert_section, 1, list_id);
        sqlite3_bind_int64(insert_section, 2, first_position + record * step);
        sqlite3_bind_text(insert_section, 3, title, length, SQLITE_STATIC);
        code = run(connection, insert_section);
        int64_t section_id = sqlite3_last_insert_rowid(connection->db);
        for (int64_t field = 0; code == SQLITE_OK && field < fields; field++) {
            section_ids[pending] = section_id;
            positions[pending] = first_position + field * step;
            label_lengths[pending] = snprintf(labels[pending], sizeof labels[pending], "field%lld", (long long)(field + 1));
            value_lengths[pending] = snprintf(values[pending], sizeof values[pending], "value-%lld-%lld",
                                              (long long)(record + 1), (long long)(field + 1));
            if (++pending == BASELINE_BATCH) {
                code = flush_rows(connection, insert_batch, insert_row, section_ids, positions, labels, label_lengths,
                                  values, value_lengths, pending);
                pending = 0;
            }
        }
    }
    if (code == SQLITE_OK && pending > 0) {
        code = flush_rows(connection, insert_batch, insert_row, section_ids, positions, labels, label_lengths, values,
                          value_lengths, pending);
    }
    if (code == SQLITE_OK && as_sectionctl) {
        code = sqlite3_exec(connection->db, "UPDATE journal_writer SET active = 0 WHERE id = 1", NULL, NULL, NULL);
    }
    if (code == SQLITE_OK) {
        code = run(connection, connection->commit);
    } else {
        rollback(connection);
    }
    sqlite3_finalize(insert_section);
    sqlite3_finalize(insert_row);
    sqlite3_finalize(insert_batch);
    return code;
}

int baseline_checkpoint_truncate(baseline_connection *connection) {
    int code = sqlite3_wal_checkpoint_v2(connection->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    return code == SQLITE_OK ? SQLITE_OK : fail(connection, code, "wal_checkpoint(TRUNCATE)");
}

int baseline_select_list(baseline_connection *connection, int64_t list_id, int64_t *rows, int64_t *bytes) {
    *rows = 0;
    *bytes = 0;
    sqlite3_stmt *statement = NULL;
    int code = prepare(connection,
                       "SELECT s.id, s.title, s.empty_text, s.row_count, r.id, r.kind, r.title, r.value "
                       "FROM sections AS s LEFT JOIN rows AS r ON r.section_id = s.id "
                       "WHERE s.list_id = ? ORDER BY s.position, r.position",
                       &statement);
    if (code != SQLITE_OK) return code;
    code = sqlite3_exec(connection->db, "BEGIN", NULL, NULL, NULL);
    if (code != SQLITE_OK) {
        sqlite3_finalize(statement);
        return fail(connection, code, "BEGIN");
    }
    sqlite3_bind_int64(statement, 1, list_id);
    int64_t count = 0;
    int64_t total = 0;
    while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
        total += sqlite3_column_int64(statement, 0) + sqlite3_column_int64(statement, 3) + sqlite3_column_int64(statement, 4);
        for (int column = 1; column < 8; column++) {
            if (column == 3 || column == 4) continue;
            const unsigned char *text = sqlite3_column_text(statement, column);
            if (text != NULL) total += sqlite3_column_bytes(statement, column);
        }
        count++;
    }
    if (code != SQLITE_DONE) {
        fail(connection, code, "SELECT of a list");
        sqlite3_finalize(statement);
        rollback(connection);
        return code;
    }
    sqlite3_finalize(statement);
    code = sqlite3_exec(connection->db, "COMMIT", NULL, NULL, NULL);
    if (code != SQLITE_OK) return fail(connection, code, "COMMIT");
    *rows = count;
    *bytes = total;
    return SQLITE_OK;
}

/* The tables of the plain-table baseline: the columns, constraints and unique indexes of
 * sectionctl's lists, sections and rows (Migrations/0001_initial.sql), and nothing else: no
 * triggers, no rank, journal or undo tables. */
static const char *plain_schema =
    "PRAGMA journal_mode = WAL;"
    "CREATE TABLE lists ("
    "    id      INTEGER PRIMARY KEY AUTOINCREMENT,"
    "    name    TEXT    NOT NULL UNIQUE CHECK (length(name) > 0),"
    "    version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0)"
    ") STRICT;"
    "CREATE TABLE sections ("
    "    id         INTEGER PRIMARY KEY AUTOINCREMENT,"
    "    list_id    INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,"
    "    position   INTEGER NOT NULL,"
    "    title      TEXT    NOT NULL,"
    "    empty_text TEXT,"
    "    row_count  INTEGER NOT NULL DEFAULT 0 CHECK (row_count >= 0),"
    "    UNIQUE (list_id, position)"
    ") STRICT;"
    "CREATE TABLE rows ("
    "    id         INTEGER PRIMARY KEY AUTOINCREMENT,"
    "    section_id INTEGER NOT NULL REFERENCES sections (id) ON DELETE CASCADE,"
    "    position   INTEGER NOT NULL,"
    "    kind       TEXT    NOT NULL DEFAULT 'text' CHECK (kind IN ('text', 'topic', 'field')),"
    "    title      TEXT    NOT NULL,"
    "    value      TEXT    CHECK (value IS NULL OR kind = 'field'),"
    "    UNIQUE (section_id, position)"
    ") STRICT;"
    "INSERT INTO lists (name) VALUES ('default');";

int baseline_create_plain(const char *path, char *error, int error_size) {
    sqlite3 *db = NULL;
    int code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (code == SQLITE_OK) code = sqlite3_exec(db, plain_schema, NULL, NULL, NULL);
    if (code != SQLITE_OK) snprintf(error, (size_t)error_size, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close_v2(db);
    return code;
}

int baseline_fill_sections(baseline_connection *connection, int64_t list_id, int64_t count,
                           int64_t first_position, int64_t step) {
    /* Set-based: one INSERT … SELECT of the sections, then one of their rows, which SQLite runs
     * as two statements (a statement each per section and row spends most of its time opening
     * and closing statement journals). */
    sqlite3_stmt *insert_sections = NULL;
    sqlite3_stmt *insert_rows = NULL;
    int64_t last_id = 0;
    int code = baseline_query_int(connection, "SELECT coalesce(max(id), 0) FROM sections", &last_id);
    if (code == SQLITE_OK) {
        code = prepare(connection,
                       "WITH RECURSIVE n (i) AS (SELECT 0 WHERE ?2 > 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?2) "
                       "INSERT INTO sections (list_id, position, title) "
                       "SELECT ?1, ?3 + i * ?4, 'Section ' || i FROM n ORDER BY i",
                       &insert_sections);
    }
    if (code == SQLITE_OK) {
        code = prepare(connection,
                       "INSERT INTO rows (section_id, position, kind, title) "
                       "SELECT id, ?3, 'text', 'Row ' || (id - ?2 - 1) FROM sections WHERE list_id = ?1 AND id > ?2 ORDER BY id",
                       &insert_rows);
    }
    if (code == SQLITE_OK) code = run(connection, connection->begin);
    if (code == SQLITE_OK) {
        code = sqlite3_exec(connection->db, "UPDATE journal_writer SET active = 1, step = step + 1 WHERE id = 1", NULL, NULL, NULL);
    }
    if (code == SQLITE_OK) {
        sqlite3_bind_int64(insert_sections, 1, list_id);
        sqlite3_bind_int64(insert_sections, 2, count);
        sqlite3_bind_int64(insert_sections, 3, first_position);
        sqlite3_bind_int64(insert_sections, 4, step);
        code = run(connection, insert_sections);
    }
    if (code == SQLITE_OK) {
        sqlite3_bind_int64(insert_rows, 1, list_id);
        sqlite3_bind_int64(insert_rows, 2, last_id);
        sqlite3_bind_int64(insert_rows, 3, first_position);
        code = run(connection, insert_rows);
    }
    if (code == SQLITE_OK) {
        code = sqlite3_exec(connection->db, "UPDATE journal_writer SET active = 0 WHERE id = 1", NULL, NULL, NULL);
    }
    if (code == SQLITE_OK) {
        code = run(connection, connection->commit);
    } else {
        rollback(connection);
    }
    sqlite3_finalize(insert_sections);
    sqlite3_finalize(insert_rows);
    return code;
}

int baseline_query_file_int(const char *path, const char *sql, int64_t *value, char *error, int error_size) {
    sqlite3 *db = NULL;
    sqlite3_stmt *statement = NULL;
    *value = 0;
    int code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (code == SQLITE_OK) code = sqlite3_prepare_v2(db, sql, -1, &statement, NULL);
    if (code == SQLITE_OK) {
        code = sqlite3_step(statement);
        if (code == SQLITE_ROW) *value = sqlite3_column_int64(statement, 0);
        if (code == SQLITE_ROW || code == SQLITE_DONE) code = SQLITE_OK;
    }
    if (code != SQLITE_OK) snprintf(error, (size_t)error_size, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_finalize(statement);
    sqlite3_close_v2(db);
    return code;
}
