/*
 * sectionctl-cpeer: the C process the benchmark starts beside a sectionctl process, to compare
 * whole-process costs (start, open, read, durable commit) with what a C program pays for the
 * same work on plain tables (Baseline.createPlain's: sectionctl's columns and unique indexes,
 * no triggers). It opens the file as sectionctl does (WAL, synchronous=FULL, foreign keys, a
 * busy timeout) and prints what the sectionctl command prints, formatted the same way.
 *
 *   sectionctl-cpeer version           a line naming it and its SQLite (sectionctl --version)
 *   sectionctl-cpeer get DB S R        the section at index S and its row at index R of the list
 *                                      'default' (sectionctl row get S:R)
 *   sectionctl-cpeer move DB S         one transaction, committed durably: the first row of the
 *                                      section at index S gets a position past its last row,
 *                                      and the list's version goes up (sectionctl row move S:0 S:end)
 *   sectionctl-cpeer show DB           the whole list 'default', every line as sectionctl show writes
 *                                      it to a file (sectionctl show): the header, each section's
 *                                      line, each row's line with its path padded to the widest
 *                                      path. Text rows only (the benchmark's fixtures); titles are
 *                                      printed as stored, where sectionctl escapes control
 *                                      characters (the fixtures have none; the benchmark compares
 *                                      the two outputs byte for byte).
 *   sectionctl-cpeer measure PROGRAM ARGUMENTS…
 *                                      runs the program (stdout on /dev/null) and prints its exit
 *                                      status and peak resident set in KiB. A small process must be
 *                                      the one that spawns it: Linux starts a child's peak at its
 *                                      spawner's, which for the benchmark itself is ~16 MiB.
 */
#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

static sqlite3 *db;

static int fail(const char *what) {
    fprintf(stderr, "sectionctl-cpeer: %s: %s\n", what, db ? sqlite3_errmsg(db) : "cannot open");
    return 1;
}

static int open_database(const char *path) {
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) return fail(path);
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;", NULL, NULL, NULL) != SQLITE_OK)
        return fail("pragmas");
    return 0;
}

/* The id, title and row count of the section at index `index` of the list 'default'. */
static int section_at(int64_t index, int64_t *id, char *title, size_t size, int64_t *count) {
    sqlite3_stmt *statement;
    const char *sql = "SELECT s.id, s.title, s.row_count FROM sections s JOIN lists l ON l.id = s.list_id "
                      "WHERE l.name = 'default' ORDER BY s.position LIMIT 1 OFFSET ?";
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) return fail("prepare");
    sqlite3_bind_int64(statement, 1, index);
    int found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        *id = sqlite3_column_int64(statement, 0);
        snprintf(title, size, "%s", (const char *)sqlite3_column_text(statement, 1));
        *count = sqlite3_column_int64(statement, 2);
    }
    sqlite3_finalize(statement);
    if (!found) {
        fprintf(stderr, "sectionctl-cpeer: no section at index %lld\n", (long long)index);
        return 1;
    }
    return 0;
}

static int get(const char *path, int64_t s, int64_t r) {
    if (open_database(path)) return 1;
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) return fail("BEGIN");
    int64_t section, count;
    char title[4096];
    if (section_at(s, &section, title, sizeof title, &count)) return 1;
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v2(db, "SELECT id, title FROM rows WHERE section_id = ? ORDER BY position LIMIT 1 OFFSET ?", -1, &statement, NULL) != SQLITE_OK)
        return fail("prepare");
    sqlite3_bind_int64(statement, 1, section);
    sqlite3_bind_int64(statement, 2, r);
    if (sqlite3_step(statement) != SQLITE_ROW) return fail("no such row");
    printf("[%lld] %s  #%lld  (%lld rows)\n", (long long)s, title, (long long)section, (long long)count);
    printf("  %lld:%lld  %s  #%lld\n", (long long)s, (long long)r, (const char *)sqlite3_column_text(statement, 1),
           (long long)sqlite3_column_int64(statement, 0));
    sqlite3_finalize(statement);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    return sqlite3_close(db) == SQLITE_OK ? 0 : fail("close");
}

static int move(const char *path, int64_t s) {
    if (open_database(path)) return 1;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return fail("BEGIN IMMEDIATE");
    int64_t section, count;
    char title[4096];
    if (section_at(s, &section, title, sizeof title, &count)) return 1;
    sqlite3_stmt *statement;
    const char *sql = "UPDATE rows SET position = (SELECT max(position) + 1024 FROM rows WHERE section_id = ?1) "
                      "WHERE id = (SELECT id FROM rows WHERE section_id = ?1 ORDER BY position LIMIT 1)";
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) return fail("prepare");
    sqlite3_bind_int64(statement, 1, section);
    int code = sqlite3_step(statement);
    sqlite3_finalize(statement);
    if (code != SQLITE_DONE || sqlite3_changes(db) != 1) return fail("UPDATE rows");
    int64_t version = 0;
    if (sqlite3_prepare_v2(db, "UPDATE lists SET version = version + 1 WHERE name = 'default' RETURNING version", -1, &statement, NULL) != SQLITE_OK)
        return fail("prepare");
    if (sqlite3_step(statement) == SQLITE_ROW) version = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) return fail("COMMIT");
    printf("Moved row %lld:0 to %lld:%lld; list \"default\" is at version %lld.\n", (long long)s, (long long)s, (long long)(count - 1),
           (long long)version);
    return sqlite3_close(db) == SQLITE_OK ? 0 : fail("close");
}

static int show(const char *path) {
    if (open_database(path)) return 1;
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) return fail("BEGIN");
    sqlite3_stmt *statement;
    const char *header = "SELECT l.id, l.name, l.version, count(c.i), "
                         "coalesce(max(CASE WHEN c.n = 0 THEN 3 ELSE length((c.i - 1) || ':' || (c.n - 1)) END), 3) "
                         "FROM lists l LEFT JOIN (SELECT list_id, row_number() OVER (ORDER BY position) AS i, row_count AS n "
                         "FROM sections WHERE list_id = (SELECT id FROM lists WHERE name = 'default')) c ON c.list_id = l.id "
                         "WHERE l.name = 'default' GROUP BY l.id";
    if (sqlite3_prepare_v2(db, header, -1, &statement, NULL) != SQLITE_OK) return fail("prepare");
    if (sqlite3_step(statement) != SQLITE_ROW) return fail("no list 'default'");
    int64_t list = sqlite3_column_int64(statement, 0);
    int64_t sections = sqlite3_column_int64(statement, 3);
    int width = sqlite3_column_int(statement, 4);
    if (width < 3) width = 3;
    static char buffer[1 << 16];
    setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    printf("%s (version %lld)\n", (const char *)sqlite3_column_text(statement, 1), (long long)sqlite3_column_int64(statement, 2));
    sqlite3_finalize(statement);
    if (sections == 0) printf("\n(no sections yet; add one with: section add TITLE)\n");
    const char *items = "SELECT s.id, s.title, r.id, r.kind, r.title FROM sections s LEFT JOIN rows r ON r.section_id = s.id "
                        "WHERE s.list_id = ? ORDER BY s.position, r.position";
    if (sqlite3_prepare_v2(db, items, -1, &statement, NULL) != SQLITE_OK) return fail("prepare");
    sqlite3_bind_int64(statement, 1, list);
    int64_t section = 0, index = -1, row = 0;
    char shown[64];
    while (sqlite3_step(statement) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(statement, 0);
        if (id != section) {
            section = id;
            index++;
            row = 0;
            printf("\n[%lld] %s  #%lld\n", (long long)index, (const char *)sqlite3_column_text(statement, 1), (long long)id);
        }
        if (sqlite3_column_type(statement, 2) == SQLITE_NULL) continue;
        if (strcmp((const char *)sqlite3_column_text(statement, 3), "text") != 0) {
            fprintf(stderr, "sectionctl-cpeer: show prints text rows only\n");
            return 2;
        }
        snprintf(shown, sizeof shown, "%lld:%lld", (long long)index, (long long)row++);
        printf("  %-*s  %s  #%lld\n", width, shown, (const char *)sqlite3_column_text(statement, 4),
               (long long)sqlite3_column_int64(statement, 2));
    }
    sqlite3_finalize(statement);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (fflush(stdout) != 0) return 1;
    return sqlite3_close(db) == SQLITE_OK ? 0 : fail("close");
}

static int measure(char **arguments) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int code = posix_spawn(&pid, arguments[0], &actions, NULL, arguments, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (code != 0) {
        fprintf(stderr, "sectionctl-cpeer: cannot run %s: error %d\n", arguments[0], code);
        return 1;
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) return 1;
    printf("%d %ld\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), usage.ru_maxrss);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "measure") == 0) return measure(argv + 2);
    if (argc == 2 && strcmp(argv[1], "version") == 0) {
        printf("sectionctl-cpeer (SQLite %s)\n", sqlite3_libversion());
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "get") == 0) return get(argv[2], atoll(argv[3]), atoll(argv[4]));
    if (argc == 4 && strcmp(argv[1], "move") == 0) return move(argv[2], atoll(argv[3]));
    if (argc == 3 && strcmp(argv[1], "show") == 0) return show(argv[2]);
    fprintf(stderr, "usage: sectionctl-cpeer version | get DB S R | move DB S | show DB\n");
    return 2;
}
