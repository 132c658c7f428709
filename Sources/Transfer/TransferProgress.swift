/// How far a long import or export has got, as reported to a `ProgressHandler`.
///
/// An app shows its own bar from it; `sectionctl` draws a line on standard error.
public struct TransferProgress: Sendable, Hashable {
    /// Rows written so far (an import) or read so far (an export).
    public var rows: Int
    /// Bytes of input read so far (an import from a file handle), or of output handed to the
    /// writer so far (an export); 0 when the input was given in memory.
    public var bytes: Int
    /// The rows there are to do, when known before starting (an export); `nil` for an import,
    /// whose input's size (when it is a file) says how far it has got instead.
    public var totalRows: Int?

    /// Creates a progress report.
    public init(rows: Int = 0, bytes: Int = 0, totalRows: Int? = nil) {
        self.rows = rows
        self.bytes = bytes
        self.totalRows = totalRows
    }
}

/// Called with the progress of a long import or export, often (every few dozen rows and every
/// 64 KiB of input or output), on the thread doing the work, while the store's connection is
/// held: it must be quick, and must not call the store. Rate-limit any drawing in it.
public typealias ProgressHandler = (TransferProgress) -> Void

/// Counts a transfer's rows and bytes and hands the count to a `ProgressHandler`: every
/// `rowStep` rows counted one at a time, and whenever rows or bytes are added in bulk.
final class ProgressMeter {
    /// Rows between reports when they are counted one at a time.
    static let rowStep = 256

    private let handler: ProgressHandler
    private(set) var progress: TransferProgress
    private var uncountedRows = 0

    /// A meter reporting to `handler`, or `nil` when there is none (so that counting costs a
    /// `nil` check).
    init?(_ handler: ProgressHandler?, totalRows: Int? = nil) {
        guard let handler else { return nil }
        self.handler = handler
        self.progress = TransferProgress(totalRows: totalRows)
    }

    /// Counts one row, reporting every `rowStep`.
    func countRow() {
        uncountedRows += 1
        if uncountedRows == Self.rowStep { add(rows: 0) }
    }

    /// Adds rows (and the rows counted one at a time since the last report) and reports.
    func add(rows: Int) {
        progress.rows += rows + uncountedRows
        uncountedRows = 0
        handler(progress)
    }

    /// Adds bytes read or written and reports.
    func add(bytes: Int) {
        progress.bytes += bytes
        progress.rows += uncountedRows
        uncountedRows = 0
        handler(progress)
    }
}
