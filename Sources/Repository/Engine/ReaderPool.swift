import Synchronization

/// Connections a store reads on, beside the one it writes on, so that a read never waits for a
/// write: in WAL mode a SQLite reader sees the last committed state while a writer works, and a
/// server serves each connection on its own. Each read takes an idle connection (or opens one),
/// and gives it back when the read is done; at most `maximumIdle` wait between reads.
///
/// The store's own connection still serves reads where a second connection cannot share the
/// file: not in WAL mode, immutable, or held in exclusive locking mode on a full disk.
final class ReaderPool: Sendable {
    /// How many connections stay open between reads.
    static let maximumIdle = 4

    private let idle = Mutex<[PooledConnection]>([])
    private let open: @Sendable () throws -> any Database

    /// A pool whose connections `open` makes.
    init(open: @escaping @Sendable () throws -> any Database) {
        self.open = open
    }

    /// Runs `body` on an idle reader, or on a new one; `nil` without running it when no reader
    /// can be opened (the file's directory gone, no connection slots left on a server): the
    /// caller reads on the store's own connection instead, as it would without a pool. A reader
    /// whose read failed is closed rather than kept: its connection may be what failed.
    func withReader<T>(_ body: (any Database) throws -> T) throws -> T? {
        let reader: PooledConnection
        if let idle = idle.withLock({ $0.popLast() }) {
            reader = idle
        } else if let opened = try? open() {
            reader = PooledConnection(opened)
        } else {
            return nil
        }
        let result = try body(reader.db)
        idle.withLock { if $0.count < Self.maximumIdle { $0.append(reader) } }
        return result
    }

    /// How many readers are open and idle (for tests).
    var idleCount: Int { idle.withLock { $0.count } }
}

/// A reader connection in the pool. The pool hands each to one thread at a time: it is taken
/// out of the idle list under the lock and put back only when its read is done.
private final class PooledConnection: @unchecked Sendable {
    let db: any Database

    init(_ db: any Database) {
        self.db = db
    }
}
