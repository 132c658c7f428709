/// What `SectionStore.vacuum()` did to a database file's size.
public struct SpaceReport: Hashable, Sendable {
    /// The free pages at which a write gives them back to the file system (4 MiB of 4 KiB
    /// pages), when they are also an eighth of the file or more.
    public static let reclaimThresholdPages: Int64 = 1024

    /// The size, in bytes, a file's write-ahead log is cut back to once it is reset (SQLite's
    /// `journal_size_limit`): 16 MiB.
    public static let walSizeLimit: Int64 = 16 << 20

    /// The bytes the file and its write-ahead log took before.
    public var bytesBefore: Int64
    /// The bytes they take after.
    public var bytesAfter: Int64
    /// The free pages the file held before.
    public var freePagesBefore: Int64
    /// Whether the file now gives free pages back by itself after large deletes and undos
    /// (`auto_vacuum = INCREMENTAL`).
    public var reclaimsFreePages: Bool

    /// Creates a report.
    public init(bytesBefore: Int64, bytesAfter: Int64, freePagesBefore: Int64, reclaimsFreePages: Bool) {
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
        self.freePagesBefore = freePagesBefore
        self.reclaimsFreePages = reclaimsFreePages
    }
}

extension SectionStore {
    /// Rewrites the database file compactly (SQLite's `VACUUM`), truncates its write-ahead log,
    /// and sets it to give free pages back after large deletes and undos from then on. A file
    /// created by this version already does that (`auto_vacuum = INCREMENTAL`): after any write
    /// that leaves `SpaceReport.reclaimThresholdPages` free pages and an eighth of the file
    /// free, the file shrinks by them. `vacuum()` is for a file made by an older version, or
    /// to shrink a file at once. The command line's `sectionctl vacuum`.
    ///
    /// - Returns: the sizes before and after; `nil` on a server, whose autovacuum reclaims
    ///   space by itself.
    /// - Throws: `RepositoryError.busy` while another connection holds a transaction open (an
    ///   edit session, another process's write); `.readOnly` on a read-only file.
    /// - Complexity: O(size of the database): it copies every page once.
    @discardableResult
    public func vacuum() throws -> SpaceReport? {
        if isReadOnly { throw RepositoryError.readOnly(path: path) }
        // Rank nodes plain SQL left noted are settled first, so the file is compacted at rest.
        try write { _ in }
        return try withConnection { db in try db.compact() }
    }
}
