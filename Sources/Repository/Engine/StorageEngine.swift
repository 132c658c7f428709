/// The storage seam: what "an engine" is. Every operation of the Repository reaches its data
/// through one `Database`, a connection to one backend, which is two small protocols:
///
/// - `SQLExecutor` runs the SQL the Repository writes once, in the subset both engines speak,
///   and gives the two snippets where their dialects part.
/// - `StorageEngine` (below) is the work each engine does its own way: the rank walks, marking a
///   write as sectionctl's and a commit's bookkeeping, bulk writes, the engine's own integrity
///   checks, space, and what replicas ask of a server. Nothing outside `Engine/` asks which
///   engine it has.
///
/// There are two engines, twins that each wrap their connection: `SQLiteEngine` (a database
/// file, `Engine/SQLite/`, over the thin `SQLite.Connection`) and `PostgresEngine` (a server,
/// the module `RepositoryPostgres`, over `Postgres.PostgresConnection`). A file is opened by
/// `SQLiteStorage`; a server by the `ServerSupport` an app passes in (`ServerSupport.swift`).
///
/// Not `Sendable`: one thread uses a connection at a time (`SectionStore` holds it in a mutex).
package protocol Database: SQLExecutor, StorageEngine {}

/// The domain operations each engine does its own way (see `Database` for the whole seam). Where
/// an engine has nothing to do, its answer says so (`nil`, `false`, `.unsupported`, empty), and
/// the caller takes the general path.
package protocol StorageEngine: AnyObject {
    // MARK: Writing: locks, the writer mark, commits

    /// Locks the list that holds `owner` (a section of it, or the list itself) as a write to
    /// that list would (see `SQLExecutor.listLockClause`), before reshaping a structure someone
    /// else's plain SQL noted.
    func lockList(holding owner: Int64, in space: RankSpace) throws

    /// Marks the open write transaction as sectionctl's own (`active`), so that the triggers
    /// that notice plain-SQL changes leave its writes alone; first thing in every write
    /// transaction (`TransactionMode.ownWrite` sets it as the transaction begins). Cleared
    /// (`!active`) before it commits (see `endWriterMark()`).
    func setWriterMark(active: Bool) throws

    /// A commit's bookkeeping: bumps the list's version and journals `changesJSON` under it (or
    /// a reload, when plain SQL changed the list since its last journaled version), drops the
    /// journal entries past what is kept, and files the version in the list's undo history as
    /// `history` says.
    /// - Returns: the new version.
    func commitChange(_ changesJSON: String, to list: ListRecord, history: HistoryStep) throws -> ListVersion

    /// Starts noticing commits made anywhere to the database, for an observer on this
    /// connection: what `CommitSignal.wait(upTo:)` waits for.
    func makeCommitSignal(listID: Int64) throws -> any CommitSignal

    // MARK: Rank walks (see `RankTree`)

    /// The id and position of the item at 0-based `index` of `owner` in `space` (a row of a
    /// section, a section of a list), walking its rank structure; `nil` past the end.
    /// - Complexity: O(log n) in the owner's items.
    func rankedItem(at index: Int, of owner: Int64, in space: RankSpace) throws -> (id: Int64, position: Int64)?

    /// How many items of `owner` in `space` come before `position`: the 0-based index of an
    /// item there.
    /// - Complexity: O(log n) in the owner's items.
    func rankedIndex(ofPosition position: Int64, of owner: Int64, in space: RankSpace) throws -> Int

    /// The row at 0-based `index` of `section` with its content, as `rankedItem(at:of:in:)`
    /// finds it (one round trip on a server).
    func rankedRowWithContent(at index: Int, inSection section: Int64) throws -> (id: Int64, position: Int64, content: RowContent)?

    /// The section at 0-based `sectionIndex` of `list` and its row at 0-based `rowIndex` (`nil`:
    /// its last row) with the row's content, each as `rankedItem(at:of:in:)` finds it: one
    /// round trip on a server, where a path's two lookups would be two. `nil` when the list has
    /// no section there; the row `nil` when the section has no row there.
    func rankedSectionAndRow(at sectionIndex: Int, row rowIndex: Int?, inList list: Int64) throws -> (
        section: SectionRecord, row: (id: Int64, position: Int64, content: RowContent)?
    )?

    /// Up to `limit` rows of `section` in order, from its row at 0-based `index` on, that row
    /// found as `rankedItem(at:of:in:)` finds it (one round trip on a server); empty when it
    /// finds none.
    func rankedRows(ofSection section: Int64, from index: Int, limit: Int) throws -> [Row]

    /// Up to `limit` sections of `list` in order, from its section at 0-based `index` on, that
    /// section found as `rankedItem(at:of:in:)` finds it (one round trip on a server); empty
    /// when it finds none.
    func rankedSectionRecords(inList list: Int64, from index: Int, limit: Int) throws -> [SectionRecord]

    // MARK: Ordering (see `OrderedTable` and `RankTree`)

    /// The position for an item that is to be at `slot` (0…count) among the `count` items of
    /// `owner` in `space`, not counting `moving`, found by the engine's own function in one call
    /// (a server's `position_at_slot`, `Migrations/postgres/0012_ordering_on_the_server.sql`),
    /// with how many existing items it rewrote to make room; `nil` where the engine has none,
    /// having done nothing: `OrderedTable.positionForSlot` then works it out in Swift, step for
    /// step the same. `movingIndex` is the moving item's index among `owner`'s items when the
    /// caller knows it is one of them.
    func positionForSlot(
        _ slot: Int, of owner: Int64, in space: RankSpace, count: Int, moving: Int64?, movingIndex: Int?
    ) throws -> (position: Int64, rewritten: Int)?

    /// Splits and merges the rank nodes noted in the open write transaction by the engine's own
    /// function, in one call (a server's `rank_settle`); false where the engine has none, having
    /// done nothing: `RankTree.settle` then does it in Swift, step for step the same.
    func settleRankNodes() throws -> Bool

    // MARK: Bulk writes

    /// Starts a bulk append of rows inside the open write transaction, in the fastest way the
    /// backend has (batched multi-row `INSERT`s; `COPY`). Rows reach the database by
    /// `RowAppender.finish()` at the latest; nothing else may use the connection meanwhile.
    /// With `keepingIDs`, every row appended carries its id (a clone's rows keep the server's);
    /// without, the database picks them.
    func makeRowAppender(keepingIDs: Bool) throws -> any RowAppender

    /// The highest section id and row id in use (0 when none): where a bulk append's items
    /// begin. Read before `beginBulkAppend()`.
    func highestItemIDs() throws -> (section: Int64, row: Int64)

    /// Turns the per-row bookkeeping of inserts off for the rest of the open write transaction,
    /// where the engine can (`Migrations/0007_bulk_append.sql` on SQLite), so that appends pay
    /// for it once per batch in `finishBulkAppend`. Returns false where it cannot (a server's
    /// triggers already run once per statement): then nothing is to be done afterwards.
    func beginBulkAppend() throws -> Bool

    /// Does the bookkeeping the insert triggers skipped for the sections of `list` with an id
    /// after `sectionsAfter` and the rows with an id after `rowsAfter` (appended at the ends of
    /// the list and of their sections, in this transaction), and turns the triggers on again.
    func finishBulkAppend(list: Int64, sectionsAfter: Int64, rowsAfter: Int64) throws

    /// Deletes the rows of the list's sections that `condition` picks (SQL on `sections`, with
    /// `arguments`) with their bookkeeping done once, set-based, where the engine can; returns
    /// false where it cannot, having done nothing (the caller deletes the rows itself).
    func emptySectionsInBulk(list: Int64, where condition: String, _ arguments: [(any SQLArgument)?]) throws -> Bool

    /// Takes back the logged row writes `logIDs` (`undo_log` ids, in the order to take them
    /// back), all of kind `write`, with the bookkeeping done once, set-based, where the engine
    /// can (`.unsupported` where it cannot, having written nothing): an insert by deleting its
    /// row, a delete by inserting the row again as the log kept it (id included). `.missing`
    /// when a row is gone (or an entry holds no whole row, or a row's section is gone),
    /// `.foreign` when one is not in a section of `list`: nothing written then either. A row id
    /// or place taken since throws the table's constraint violation. Rows put back into a
    /// section noted as put back (`noteSectionsPutBack`) get no undo entry of their own.
    func takeBackLoggedRowsInBulk(_ write: LoggedRowWrite, list: Int64, logIDs: [Int64]) throws -> BulkReversal

    /// Notes sections an undo or redo has just put back, or forgets those noted (see
    /// `SectionsPutBack`). Where the engine logs every row regardless, does nothing.
    func noteSectionsPutBack(_ note: SectionsPutBack) throws

    // MARK: Integrity (`check()` and `repair()`)

    /// The engine's own side of `check()`: its page check (SQLite's `quick_check`), its schema
    /// objects against those of a new database of the same schema version, the foreign keys it
    /// finds broken in tables the shared checks do not cover, and its writer mark where that is
    /// a row (`journal_writer`). Empty where the engine checks none of it itself (a server
    /// checks its own pages, its schema objects are its owner's, and its writer mark is the
    /// transaction's own).
    func engineIntegrity() throws -> EngineIntegrity

    /// Mends, in the open write transaction, what `engineIntegrity()` found (see `EngineMend`).
    /// Returns one line per thing it changed; none where the engine found nothing to mend.
    func mend(_ mend: EngineMend) throws -> [String]

    /// The step number of the open write transaction (the key of its undo log entries); `nil`
    /// when the writer mark holds none.
    func writerStep() throws -> Int64?

    // MARK: Space

    /// After a write committed, outside any transaction: gives the file's free pages back to the
    /// file system when many have built up (a large delete, an undo of an import), so that the
    /// file stays proportional to what it holds. Does nothing where the engine reclaims space
    /// by itself (a server's autovacuum).
    func reclaimFreePages() throws

    /// Rewrites the whole database compactly, outside any transaction, and from then on gives
    /// free pages back after large deletes (`reclaimFreePages()`). `nil` where the engine
    /// reclaims space by itself (a server).
    func compact() throws -> SpaceReport?

    // MARK: Replicas

    /// Whether the database has a replica's tables (`Migrations/0010_replica.sql`), which only a
    /// file has: a server is what replicas mirror, never one itself.
    func holdsReplicaTables() throws -> Bool

    /// Takes `count` new ids for `table` ("rows" or "sections") from the engine's own identity
    /// sequence, inside the caller's write transaction: ids nobody else will be given, for a
    /// replica to use offline (the sync service gives them in blocks).
    func allotIDs(table: String, count: Int) throws -> [Int64]

    /// The last id the engine's own sequence for `table` ("rows" or "sections") gave out (0
    /// before the first): what `check` compares with the highest id in use.
    func idSequence(table: String) throws -> Int64

    /// Moves the sequence for `table` to `value`, so that the next id it gives is past it
    /// (`repair`, when ids in use are ahead of it).
    func setIDSequence(table: String, to value: Int64) throws
}

extension Database {
    /// The highest id the engine's sequence for `table` has given out, or the highest a row holds
    /// if that is higher: an id above it may still be given to someone, so no request may take one.
    package func highestIDGiven(table: String) throws -> Int64 {
        precondition(table == "rows" || table == "sections")
        return max(try idSequence(table: table), try scalarInt("SELECT coalesce(max(id), 0) FROM \(table)") ?? 0)
    }
}

extension StorageEngine {
    /// Marks the open write transaction as sectionctl's own (`setWriterMark(active:)`).
    package func beginWriterMark() throws { try setWriterMark(active: true) }

    /// Clears the mark `beginWriterMark()` (or `TransactionMode.ownWrite`) set, before the
    /// transaction commits.
    package func endWriterMark() throws { try setWriterMark(active: false) }

    /// The id and position of the row at 0-based `index` of `section`; `nil` past the end.
    package func rankedRow(at index: Int, inSection section: Int64) throws -> (id: Int64, position: Int64)? {
        try rankedItem(at: index, of: section, in: .rows)
    }

    /// How many rows of `section` come before `position`.
    package func rankedIndex(ofPosition position: Int64, inSection section: Int64) throws -> Int {
        try rankedIndex(ofPosition: position, of: section, in: .rows)
    }

    /// The id and position of the section at 0-based `index` of `list`; `nil` past the end.
    package func rankedSection(at index: Int, inList list: Int64) throws -> (id: Int64, position: Int64)? {
        try rankedItem(at: index, of: list, in: .sections)
    }

    /// How many sections of `list` come before `position`.
    package func rankedSectionIndex(ofPosition position: Int64, inList list: Int64) throws -> Int {
        try rankedIndex(ofPosition: position, of: list, in: .sections)
    }

    /// Takes back logged row inserts by deleting their rows (`takeBackLoggedRowsInBulk`).
    package func deleteLoggedRowsInBulk(list: Int64, logIDs: [Int64]) throws -> BulkReversal {
        try takeBackLoggedRowsInBulk(.insert, list: list, logIDs: logIDs)
    }

    /// Takes back logged row deletes by inserting the rows again (`takeBackLoggedRowsInBulk`).
    package func restoreLoggedRowsInBulk(list: Int64, logIDs: [Int64]) throws -> BulkReversal {
        try takeBackLoggedRowsInBulk(.delete, list: list, logIDs: logIDs)
    }

    /// Notes sections an undo or redo has just put back (`SectionsPutBack.noted`).
    package func noteSectionsPutBack(_ ids: [Int64]) throws { try noteSectionsPutBack(.noted(ids)) }

    /// Forgets the sections noted as put back (`SectionsPutBack.forgotten`).
    package func forgetSectionsPutBack() throws { try noteSectionsPutBack(.forgotten) }

    /// Puts the writer mark back where it is a row (`EngineMend.writerMark`).
    package func restoreWriterMark(pastStep highestStepInUse: Int64?) throws -> [String] {
        try mend(.writerMark(pastStep: highestStepInUse))
    }

    /// Mends schema objects in `phase` (`EngineMend.schema`).
    package func mendSchema(_ differences: [SchemaDifference], phase: SchemaMendPhase) throws -> [String] {
        try mend(.schema(differences, phase: phase))
    }
}

/// Tells an observer that something may have been committed to the database since it last
/// looked (`StorageEngine.makeCommitSignal(listID:)`): a change of `PRAGMA data_version` on a
/// SQLite file, a notification naming the list on a server.
package protocol CommitSignal: AnyObject {
    /// Whether something may have been committed since the last call (the first call says yes),
    /// waiting up to `seconds` for it when nothing is new yet.
    func wait(upTo seconds: Double) throws -> Bool
}

extension StorageEngine {
    /// A bulk append of rows whose ids the database picks (`makeRowAppender(keepingIDs:)`).
    package func makeRowAppender() throws -> any RowAppender {
        try makeRowAppender(keepingIDs: false)
    }
}

/// Rows appended in bulk (see `StorageEngine.makeRowAppender(keepingIDs:)`).
package protocol RowAppender: AnyObject {
    /// Queues a row for `section` at `position`, with the id `id` (an appender that keeps ids
    /// needs one; another takes none); written in batches.
    func append(section: Int64, position: Int64, content: RowContent, id: Int64?) throws
    /// Writes every queued row. Returns how many rows it wrote.
    @discardableResult
    func finish() throws -> Int
}

extension RowAppender {
    /// Queues a row for `section` at `position`, whose id the database picks.
    package func append(section: Int64, position: Int64, content: RowContent) throws {
        try append(section: section, position: position, content: content, id: nil)
    }
}

/// The kind of logged row write a bulk reversal takes back
/// (`StorageEngine.takeBackLoggedRowsInBulk`).
package enum LoggedRowWrite: Sendable {
    /// Row inserts, taken back by deleting the rows.
    case insert
    /// Row deletes, taken back by inserting the rows again.
    case delete
}

/// How a bulk reversal of logged row writes went (`StorageEngine.takeBackLoggedRowsInBulk`).
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

/// What an undo or redo says of the sections it put back (`StorageEngine.noteSectionsPutBack`).
package enum SectionsPutBack: Sendable {
    /// These sections were just put back, before any logged write of rows since: rows then put
    /// back into them in bulk need no undo entries of their own, since taking the step back
    /// empties such a section before deleting it (`SectionStore.reverse`).
    case noted([Int64])
    /// A logged write of rows came after: rows put back later than it must be logged, so that
    /// they are taken away before it is taken back. Forgets every section noted.
    case forgotten
}

/// What `repair()` has an engine mend (`StorageEngine.mend(_:)`).
package enum EngineMend: Sendable {
    /// Puts the writer mark of the open write transaction back where it is a row: the row
    /// there, marked active, its step past `pastStep` (the highest step in use) so that this
    /// transaction's undo log is its own.
    case writerMark(pastStep: Int64?)
    /// The schema objects of `differences` that `phase` mends (see `SchemaMendPhase`), made
    /// from the SQL of a new database.
    case schema([SchemaDifference], phase: SchemaMendPhase)
}
