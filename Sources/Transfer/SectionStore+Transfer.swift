import Foundation
import Repository

/// What an import does when a list it fills already has sections.
public enum ImportConflictPolicy: Sendable, Hashable {
    /// Refuse the whole import with an error naming the list; nothing is written.
    case refuse
    /// Delete the list's sections and rows, then add the imported ones.
    case replace
    /// Keep the list's sections and add the imported ones after them.
    case append
}

/// How a records import turns JSON objects into sections (see `docs/formats.md`).
public struct RecordsImportOptions: Sendable {
    /// The list that receives the sections, created when absent. The new sections go after its
    /// existing ones.
    public var list: String
    /// The top-level key whose value titles each record's section, when the template gives no
    /// title. A record without that key (or with `null`) is titled "Record N".
    public var titleKey: String?
    /// Labels, order, topic titles and expected keys; `nil` keeps every key, in the document's
    /// order, labelled by the key itself.
    public var template: RecordTemplate?

    /// Creates options for a records import.
    public init(list: String, titleKey: String? = nil, template: RecordTemplate? = nil) {
        self.list = list
        self.titleKey = titleKey
        self.template = template
    }
}

extension SectionStore {
    /// The version of the native JSON format that `exportJSON` writes and `importJSON` reads.
    public static let nativeFormatVersion = 1

    /// Every list, ordered by name, as one native JSON document.
    /// - Complexity: O(n) time and memory in all rows; `exportAllJSON(to:)` streams.
    public func exportAllJSON() throws -> String {
        var text = ""
        try exportAllJSON { text += $0 }
        return text
    }

    /// Writes every list, ordered by name, as one native JSON document, exactly the text of
    /// `exportAllJSON()`, handing it to `write` a piece at a time as the rows are read, in one
    /// read transaction. `write` must not call this store. `progress`, when given, is told of the
    /// rows read, of the row count of every list, and of the bytes handed to `write`.
    /// - Complexity: O(n) time in all rows, O(1) memory in their number.
    public func exportAllJSON(progress: ProgressHandler? = nil, to write: (String) throws -> Void) throws {
        try withoutActuallyEscaping(write) { write in
            try read { db in
                let meter = try ProgressMeter(progress, totalRows: progress == nil ? nil : db.totalRowCount(of: nil))
                var writer = NativeWriter(sink: Self.metered(write, by: meter))
                try writer.begin()
                for list in try db.listRecords() {
                    try db.writeExported(list, to: &writer, meter: meter)
                }
                try writer.end()
            }
        }
    }

    /// Imports a native JSON document, as written by `exportJSON` or `exportAllJSON`, in one
    /// transaction.
    ///
    /// Each list in the document fills the list of the same name (or, when `list` is given and
    /// the document holds exactly one list, the list named `list`), which is created when absent.
    /// A list that exists and has no sections is filled; one that has sections is handled by
    /// `policy`. Each list that changes steps its version by one.
    ///
    /// - Returns: one `Change` per list in the document, in the document's order; the changeset
    ///   lists the inserted sections (and, for `.replace`, the deleted ones).
    /// - Throws: `RepositoryError.invalidData` for bad input (malformed JSON with its line,
    ///   column and byte offset; invalid UTF-8; a document of the wrong shape, naming the JSON
    ///   path); `RepositoryError.importIntoNonEmptyList` when a list already has sections and
    ///   `policy` is `.refuse`; `RepositoryError.listNameForSeveralLists` when `list` is given for a
    ///   document with several lists. Nothing is written when it throws.
    /// - Complexity: O(input) time; `importJSON(from:list:policy:)` reads from a file handle in
    ///   memory flat in the size of the input.
    @discardableResult
    public func importJSON(_ data: Data, list: String? = nil, policy: ImportConflictPolicy = .refuse) throws -> [Change] {
        var stream = JSONStream(data: data)
        return try importJSON(from: &stream, list: list, policy: policy)
    }

    /// Imports a native JSON document read from `handle` a piece at a time, in one transaction,
    /// exactly as `importJSON(_:list:policy:)` does: the document is never held in memory, and
    /// each list is written as it is read. Endless or oversized input is refused as it comes:
    /// a string or number longer than 8 MiB as written (`docs/formats.md`), or anything that is
    /// not JSON (such as a NUL byte). The write lock is held while the input is read.
    ///
    /// A list whose `name` comes after its `sections`, or a section whose `title` comes after its
    /// `rows` (which `export` never writes), is held in memory until the name or title comes.
    /// `progress`, when given, is told of the bytes read and the rows written.
    /// - Returns: one `Change` per list, in the document's order.
    /// - Throws: as `importJSON(_:list:policy:)`; nothing is written when it throws.
    /// - Complexity: O(input) time; memory flat in the size of the input.
    @discardableResult
    public func importJSON(
        from handle: FileHandle, list: String? = nil, policy: ImportConflictPolicy = .refuse, progress: ProgressHandler? = nil
    ) throws -> [Change] {
        let meter = ProgressMeter(progress)
        var stream = JSONStream(handle: handle, meter: meter)
        return try importJSON(from: &stream, list: list, policy: policy, meter: meter)
    }

    private func importJSON(from stream: inout JSONStream, list: String?, policy: ImportConflictPolicy, meter: ProgressMeter? = nil) throws
        -> [Change]
    {
        if let list { try Self.validateListName(list) }
        return try write(retrying: false) { db in try importNative(from: &stream, list: list, policy: policy, meter: meter, db: db) }
    }

    /// `write`, telling `meter` of the bytes of each piece.
    fileprivate static func metered(_ write: @escaping (String) throws -> Void, by meter: ProgressMeter?) -> (String) throws -> Void {
        guard let meter else { return write }
        return { text in
            try write(text)
            meter.add(bytes: text.utf8.count)
        }
    }

    /// Imports records — a JSON array of objects — as sections appended to `options.list`, one
    /// per record, in one transaction (see `docs/formats.md` for the rules).
    ///
    /// Each key becomes a `field` row in the document's own key order (or the template's);
    /// numbers and booleans keep their JSON text, `null` is a missing value, an array is its JSON
    /// text, and a nested object becomes a `topic` row followed by its own fields.
    ///
    /// - Returns: the change to the list: one version step, the inserted sections.
    /// - Throws: `RepositoryError.invalidData` for malformed JSON, invalid UTF-8 or a wrong shape,
    ///   with the line, column and byte offset; nothing is written.
    ///
    /// `progress`, when given, is told of the rows written.
    @discardableResult
    public func importRecords(_ data: Data, options: RecordsImportOptions, progress: ProgressHandler? = nil) throws -> Change {
        let source = try RecordSource.checkedArray(data)
        let meter = ProgressMeter(progress)
        return try write(retrying: false) { db in try importRecords(from: source, options: options, meter: meter, db: db) }
    }

    /// Imports newline-delimited records — one JSON object per line, blank lines skipped — read
    /// from `lines` a piece at a time, so memory stays flat however many records there are. One
    /// transaction: a bad line (its line number in the error) writes nothing.
    ///
    /// - Returns: the change to the list: one version step, the inserted sections.
    /// - Throws: `RepositoryError.invalidData` for a line that is not one JSON object, with its
    ///   line, column and byte offset, or a line longer than `maximumLineLength` bytes (refused
    ///   once that much of it is read, so endless input ends); nothing is written.
    ///
    /// `progress`, when given, is told of the bytes read and the rows written.
    @discardableResult
    public func importRecords(lines: FileHandle, options: RecordsImportOptions, progress: ProgressHandler? = nil) throws -> Change {
        let meter = ProgressMeter(progress)
        let source = RecordSource.lines(LineReader(handle: lines, meter: meter))
        return try write(retrying: false) { db in try importRecords(from: source, options: options, meter: meter, db: db) }
    }
}

extension ListHandle {
    /// The list as a native JSON document (see `docs/formats.md`): the list's name, its sections
    /// in order with title and empty text, their rows in order with kind, title and value.
    /// Ids and versions are not part of the document. The text is UTF-8, pretty-printed with
    /// two-space indentation and a final newline, and the same state always gives the same text.
    /// - Throws: `RepositoryError.listNotFound` when there is no such list.
    /// - Complexity: O(n) time and memory in the list's rows; `exportJSON(progress:to:)` streams.
    public func exportJSON() throws -> String {
        var text = ""
        try exportJSON { text += $0 }
        return text
    }

    /// Writes the list as a native JSON document, exactly the text of `exportJSON()`,
    /// handing it to `write` a piece at a time (about 64 KiB each) as the rows are read, in one
    /// read transaction. `write` runs while the store's connection is held: it must not call this
    /// store. Nothing is handed to it when the list does not exist. `progress`, when given, is
    /// told of the rows read, of the list's row count, and of the bytes handed to `write`.
    /// - Throws: `RepositoryError.listNotFound` when there is no such list; what `write` throws.
    /// - Complexity: O(n) time in the list's rows, O(1) memory in its size.
    public func exportJSON(progress: ProgressHandler? = nil, to write: (String) throws -> Void) throws {
        let name = name
        try withoutActuallyEscaping(write) { write in
            try store.read { db in
                let record = try db.listRecord(named: name)
                let meter = try ProgressMeter(progress, totalRows: progress == nil ? nil : db.totalRowCount(of: record))
                var writer = NativeWriter(sink: SectionStore.metered(write, by: meter))
                try writer.begin()
                try db.writeExported(record, to: &writer, meter: meter)
                try writer.end()
            }
        }
    }

    /// Imports a native JSON document of one list into this list, created when absent; `policy`
    /// says what to do when it already has sections (`SectionStore.importJSON(_:list:policy:)`).
    /// - Throws: `RepositoryError.listNameForSeveralLists` for a document of several lists;
    ///   otherwise as the store's import. Nothing is written when it throws.
    @discardableResult
    public func importJSON(_ data: Data, policy: ImportConflictPolicy = .refuse) throws -> Change {
        try store.importJSON(data, list: name, policy: policy)[0]
    }

    /// Imports records — a JSON array of objects — as sections appended to this list, one per
    /// record, in one transaction (`SectionStore.importRecords(_:options:progress:)`).
    @discardableResult
    public func importRecords(
        _ data: Data, titleKey: String? = nil, template: RecordTemplate? = nil, progress: ProgressHandler? = nil
    ) throws -> Change {
        try store.importRecords(data, options: RecordsImportOptions(list: name, titleKey: titleKey, template: template), progress: progress)
    }

    /// Imports newline-delimited records read from `lines`, in memory flat in their number
    /// (`SectionStore.importRecords(lines:options:progress:)`).
    @discardableResult
    public func importRecords(
        lines: FileHandle, titleKey: String? = nil, template: RecordTemplate? = nil, progress: ProgressHandler? = nil
    ) throws -> Change {
        try store.importRecords(
            lines: lines, options: RecordsImportOptions(list: name, titleKey: titleKey, template: template), progress: progress)
    }
}
