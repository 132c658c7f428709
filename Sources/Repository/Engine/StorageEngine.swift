/// The storage seam: the one small interface through which every operation of the Repository
/// reaches its data. A `Database` is one connection to one backend — a SQLite file
/// (`SQLite.Connection`) or a PostgreSQL server (`PostgresDatabase`).
///
/// It has two halves. The generic half runs the SQL the Repository writes once, in the subset
/// both engines speak (`?` placeholders, `RETURNING`, window functions, `ON CONFLICT`). The
/// semantic half is the work each engine does its own way — the rank walks, marking a write as
/// sectionctl's, a commit's journal and undo bookkeeping, locking a list, the engine's own
/// integrity checks, waiting for a commit, bulk appends — so that nothing outside `Engine/`
/// asks which engine it has.
///
/// Not `Sendable`: one thread uses a connection at a time (`SectionStore` holds it in a mutex).
package protocol Database: AnyObject {
    /// Runs one statement that returns no rows, with `arguments` bound to its `?`s in order.
    /// - Returns: how many rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, arguments: [(any SQLArgument)?]) throws -> Int

    /// Runs a query and hands each result row to `body` until it returns `false` or the rows run
    /// out. A row is valid only inside the call.
    func forEachRow(_ sql: String, arguments: [(any SQLArgument)?], _ body: (any ResultRow) throws -> Bool) throws

    /// Runs one or more statements without arguments (a migration, `ROLLBACK`).
    func execute(script sql: String) throws

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    /// `.write` takes the write lock first (`BEGIN IMMEDIATE` on SQLite; on a server READ
    /// COMMITTED, with the lists it looks up locked); `.read` sees one consistent state.
    func inTransaction<T>(_ mode: TransactionMode, _ body: () throws -> T) throws -> T

    /// Runs `body` inside a savepoint of the open transaction (or a transaction of its own).
    func inSavepoint<T>(_ body: () throws -> T) throws -> T

    /// Whether no transaction is open.
    var isAutocommit: Bool { get }

    // MARK: The semantic half

    /// What a list lookup appends to lock the list's row until the transaction ends: `FOR
    /// UPDATE` inside a write on a server, where writers to different lists run at once and one
    /// list's writers take turns on its row; nothing on a SQLite file, where every writer takes
    /// turns on the whole database already.
    var listLockClause: String { get }

    /// Locks the list that holds `owner` (a section of it, or the list itself) as a write to
    /// that list would (see `listLockClause`), before reshaping a structure someone else's plain
    /// SQL noted.
    func lockList(holding owner: Int64, in space: RankSpace) throws

    /// The id and position of the row at 0-based `index` of `section`, walking the rank
    /// structure (`RankTree`); `nil` past the end.
    /// - Complexity: O(log n) in the section's rows.
    func rankedRow(at index: Int, inSection section: Int64) throws -> (id: Int64, position: Int64)?

    /// The row at 0-based `index` of `section` with its content, as `rankedRow(at:inSection:)`
    /// finds it (one round trip on a server).
    func rankedRowWithContent(at index: Int, inSection section: Int64) throws -> (id: Int64, position: Int64, content: RowContent)?

    /// How many rows of `section` come before `position`: the 0-based index of a row there.
    /// - Complexity: O(log n) in the section's rows.
    func rankedIndex(ofPosition position: Int64, inSection section: Int64) throws -> Int

    /// The id and position of the section at 0-based `index` of `list`, walking the list's
    /// section rank structure; `nil` past the end.
    /// - Complexity: O(log s) in the list's sections.
    func rankedSection(at index: Int, inList list: Int64) throws -> (id: Int64, position: Int64)?

    /// How many sections of `list` come before `position`: the 0-based index of a section there.
    /// - Complexity: O(log s) in the list's sections.
    func rankedSectionIndex(ofPosition position: Int64, inList list: Int64) throws -> Int

    /// Marks the open write transaction as sectionctl's own, so that the triggers that notice
    /// plain-SQL changes leave its writes alone. First thing in every write transaction.
    func beginWriterMark() throws

    /// Clears the mark `beginWriterMark()` set, before the transaction commits.
    func endWriterMark() throws

    /// A commit's bookkeeping: bumps the list's version and journals `changesJSON` under it (or
    /// a reload, when plain SQL changed the list since its last journaled version), drops the
    /// journal entries past what is kept, and files the version in the list's undo history as
    /// `history` says.
    /// - Returns: the new version.
    func commitChange(_ changesJSON: String, to list: ListRecord, history: HistoryStep) throws -> Int64

    /// The engine's own side of `check()`: its page check (SQLite's `quick_check`), its schema
    /// objects against those of a new database of the same schema version, the foreign keys it
    /// finds broken in tables the shared checks do not cover, and its writer mark where that is
    /// a row (`journal_writer`). Empty where the engine checks none of it itself (a server
    /// checks its own pages, its schema objects are its owner's, and its writer mark is the
    /// transaction's own).
    func engineIntegrity() throws -> EngineIntegrity

    /// Puts the writer mark of the open write transaction back where it is a row: the row
    /// there, marked active, its step past `highestStepInUse` so that this transaction's undo
    /// log is its own. Returns one line per thing it changed.
    func restoreWriterMark(pastStep highestStepInUse: Int64?) throws -> [String]

    /// Mends, in the open write transaction, the schema objects of `differences` that
    /// `phase` mends (see `SchemaMendPhase`), from the SQL of a new database. Returns one line
    /// per object it changed.
    func mendSchema(_ differences: [SchemaDifference], phase: SchemaMendPhase) throws -> [String]

    /// The step number of the open write transaction (the key of its undo log entries); `nil`
    /// when the writer mark holds none.
    func writerStep() throws -> Int64?

    /// Starts noticing commits made anywhere to the database, for an observer on this
    /// connection: what `CommitSignal.wait(upTo:)` waits for.
    func makeCommitSignal(listID: Int64) throws -> any CommitSignal

    /// Starts a bulk append of rows inside the open write transaction, in the fastest way the
    /// backend has (batched multi-row `INSERT`s; `COPY`). Rows reach the database by
    /// `RowAppender.finish()` at the latest; nothing else may use the connection meanwhile.
    func makeRowAppender() throws -> any RowAppender

    /// Turns the per-row bookkeeping of inserts off for the rest of the open write transaction,
    /// where the engine can (`Migrations/0007_bulk_append.sql` on SQLite), so that appends pay
    /// for it once per batch in `finishBulkAppend`. Returns false where it cannot (a server's
    /// triggers already run once per statement): then nothing is to be done afterwards.
    func beginBulkAppend() throws -> Bool

    /// Does the bookkeeping the insert triggers skipped for the sections of `list` with an id
    /// after `sectionsAfter` and the rows with an id after `rowsAfter` (appended at the ends of
    /// the list and of their sections, in this transaction), and turns the triggers on again.
    func finishBulkAppend(list: Int64, sectionsAfter: Int64, rowsAfter: Int64) throws

    /// The highest section id and row id in use (0 when none): where a bulk append's items begin.
    func highestItemIDs() throws -> (section: Int64, row: Int64)

    /// Deletes the rows of the list's sections that `condition` picks (SQL on `sections`, with
    /// `arguments`) with their bookkeeping done once, set-based, where the engine can; returns
    /// false where it cannot, having done nothing (the caller deletes the rows itself).
    func emptySectionsInBulk(list: Int64, where condition: String, _ arguments: [(any SQLArgument)?]) throws -> Bool

    /// Takes back the logged row inserts `logIDs` (`undo_log` ids, in the order to take them
    /// back) by deleting their rows, with the bookkeeping done once, set-based, where the engine
    /// can (`.unsupported` where it cannot, having written nothing). `.missing` when a row is
    /// gone, `.foreign` when one is not in a section of `list`: nothing written then either.
    func deleteLoggedRowsInBulk(list: Int64, logIDs: [Int64]) throws -> BulkReversal

    /// Takes back the logged row deletes `logIDs` by inserting the rows again as the log kept
    /// them (ids included), as `deleteLoggedRowsInBulk` does; `.missing` when an entry is not a
    /// whole row's or a row's section is gone, `.foreign` when a section is not `list`'s. A row
    /// id or place taken since throws the table's constraint violation. Rows put back into a
    /// section noted with `noteSectionsPutBack` get no undo entry of their own.
    func restoreLoggedRowsInBulk(list: Int64, logIDs: [Int64]) throws -> BulkReversal

    /// Notes sections an undo or redo has just put back, before any logged write of rows since:
    /// rows then put back into them in bulk need no undo entries of their own, since taking the
    /// step back empties such a section before deleting it (`SectionStore.reverse`). Where the
    /// engine logs every row regardless, does nothing.
    func noteSectionsPutBack(_ ids: [Int64]) throws

    /// Forgets the sections `noteSectionsPutBack` noted: a logged write of rows came after, and
    /// rows put back later than it must be logged, so that they are taken away before it is
    /// taken back.
    func forgetSectionsPutBack() throws

    /// After a write committed, outside any transaction: gives the file's free pages back to the
    /// file system when many have built up (a large delete, an undo of an import), so that the
    /// file stays proportional to what it holds. Does nothing where the engine reclaims space
    /// by itself (a server's autovacuum).
    func reclaimFreePages() throws

    /// Whether the database has a replica's tables (`Migrations/0010_replica.sql`), which only a
    /// file has: a server is what replicas mirror, never one itself.
    func holdsReplicaTables() throws -> Bool

    /// Takes `count` new ids for `table` ("rows" or "sections") from the engine's own identity
    /// sequence, in one statement: ids nobody else will be given, for a replica to use offline.
    /// `nil` where ids are not drawn from a shared sequence (a file).
    func allotIDs(table: String, count: Int) throws -> [Int64]?

    /// Applies a replica's push in one statement, outside any transaction (the statement is its
    /// own): `request` is the JSON `sectionctl.replica_push` takes, and the answer its JSON
    /// (`Migrations/postgres/0009_replica_push_at_once.sql`). `nil` where the engine has no such
    /// function (a file, which replicas never mirror).
    func pushReplicaAtOnce(_ request: String) throws -> String?

    /// The condition that `column` holds one of `ids`, and the one argument it binds: the whole
    /// list as one parameter (a JSON array through `json_each` in a file, a `bigint[]` on a
    /// server), so that a statement reads any number of ids, and its text, prepared once, never
    /// changes with the count.
    func oneOf(_ column: String, _ ids: [Int64]) -> (sql: String, argument: String)

    /// Rewrites the whole database compactly, outside any transaction, and from then on gives
    /// free pages back after large deletes (`reclaimFreePages()`). `nil` where the engine
    /// reclaims space by itself (a server).
    func compact() throws -> SpaceReport?
}

/// What a transaction is for (`Database.inTransaction(_:_:)`).
package enum TransactionMode: Sendable {
    /// A read of one consistent state.
    case read
    /// A write, which holds the write lock from its start.
    case write
}

/// Tells an observer that something may have been committed to the database since it last
/// looked (`Database.makeCommitSignal(listID:)`): a change of `PRAGMA data_version` on a SQLite
/// file, a notification naming the list on a server.
package protocol CommitSignal: AnyObject {
    /// Whether something may have been committed since the last call (the first call says yes),
    /// waiting up to `seconds` for it when nothing is new yet.
    func wait(upTo seconds: Double) throws -> Bool
}

/// Rows appended in bulk (see `Database.makeRowAppender()`).
package protocol RowAppender: AnyObject {
    /// Queues a row for `section` at `position`; written in batches.
    func append(section: Int64, position: Int64, content: RowContent) throws
    /// Writes every queued row. Returns how many rows it wrote.
    @discardableResult
    func finish() throws -> Int
}

/// A value that can be bound to a `?` of a statement on either backend.
package protocol SQLArgument {
    /// The value, as one of the kinds every backend stores.
    var sqlValue: SQLValue { get }
}

/// A statement argument, as one of the kinds both engines store.
package enum SQLValue {
    case integer(Int64)
    case real(Double)
    case text(String)
}

extension Int: SQLArgument {
    package var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLArgument {
    package var sqlValue: SQLValue { .integer(self) }
}

extension Bool: SQLArgument {
    package var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension Double: SQLArgument {
    package var sqlValue: SQLValue { .real(self) }
}

extension String: SQLArgument {
    package var sqlValue: SQLValue { .text(self) }
}

/// One result row of a query, read by 0-based column.
package protocol ResultRow {
    /// Whether the column is NULL.
    func isNull(_ column: Int32) -> Bool
    /// The column as an integer (0 for NULL).
    func int64(_ column: Int32) -> Int64
    /// The column as text ("" for NULL).
    func string(_ column: Int32) -> String
}

extension ResultRow {
    /// The column as an `Int` (0 for NULL).
    package func int(_ column: Int32) -> Int { Int(int64(column)) }
    /// The column as text, or `nil` for NULL.
    package func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
    /// The column as an integer, or `nil` for NULL.
    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
}

extension Database {
    /// Runs one statement that returns no rows, with `arguments` bound in order.
    /// - Returns: how many rows it inserted, updated or deleted.
    @discardableResult
    package func run(_ sql: String, _ arguments: (any SQLArgument)?...) throws -> Int {
        try run(sql, arguments: arguments)
    }

    /// Runs a query and maps each result row with `transform`.
    package func query<T>(_ sql: String, _ arguments: (any SQLArgument)?..., row transform: (any ResultRow) throws -> T) throws -> [T] {
        var results: [T] = []
        try forEachRow(sql, arguments: arguments) { row in
            results.append(try transform(row))
            return true
        }
        return results
    }

    /// Runs a query and maps its first result row with `transform`; `nil` when there is none.
    package func queryFirst<T>(_ sql: String, _ arguments: (any SQLArgument)?..., row transform: (any ResultRow) throws -> T) throws -> T? {
        var result: T?
        try forEachRow(sql, arguments: arguments) { row in
            result = try transform(row)
            return false
        }
        return result
    }

    /// The first column of the first row of a query, as an integer; `nil` when there is no row
    /// or the value is NULL.
    package func scalarInt(_ sql: String, _ arguments: (any SQLArgument)?...) throws -> Int64? {
        var result: Int64?
        try forEachRow(sql, arguments: arguments) { row in
            result = row.optionalInt64(0)
            return false
        }
        return result
    }

    /// Runs `body` in a write transaction.
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(.write, body)
    }
}

/// How a bulk reversal of logged row writes went (`Database.deleteLoggedRowsInBulk`).
package enum BulkReversal: Sendable {
    /// Every row was taken back.
    case applied
    /// The engine has no bulk path: nothing was written, and the caller goes entry by entry.
    case unsupported
    /// A row it needs is gone (or an entry holds no whole row): nothing was written.
    case missing
    /// A row or its section is not the list's: nothing was written.
    case foreign
}
