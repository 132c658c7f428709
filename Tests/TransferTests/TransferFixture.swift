import Foundation
import TestSupport
import Testing

@testable import Repository

/// A fresh database in its own temporary directory, removed when the fixture goes away.
final class TransferFixture {
    private let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    let store: SectionStore
    /// The list every new database has, `default`.
    var list: ListHandle { store.list(SectionStore.defaultList) }

    init() throws {
        temporary = try TemporaryDirectory()
        store = try SectionStore(path: temporary.path("test.db"), create: true)
    }

    /// Another fresh database in the same directory.
    func freshStore(_ name: String) throws -> SectionStore {
        try SectionStore(path: directory.appending(path: name).path, create: true)
    }

    /// Writes `text` to a file in the directory and opens it for reading.
    func fileHandle(_ name: String, contents: Data) throws -> FileHandle {
        let url = directory.appending(path: name)
        try contents.write(to: url)
        return try FileHandle(forReadingFrom: url)
    }

    /// Every list with its version and content: what "nothing was written" compares.
    func state() throws -> [ListSnapshot] {
        try store.lists().map { try store.list($0.name).snapshot() }
    }
}

extension SectionStore {
    /// Adds a section at the end and returns its index.
    @discardableResult
    func addSection(_ title: String, emptyText: String? = nil, to list: String = SectionStore.defaultList) throws -> Int {
        try self.list(list).apply(.addSection(title: title, emptyText: emptyText))
        return try self.list(list).snapshot().sections.count - 1
    }

    func addRow(_ content: RowContent, section: Int, to list: String = SectionStore.defaultList) throws {
        try self.list(list).apply(.addRow(content, to: RowDestination(section: .index(section), index: .end)))
    }

    /// The list's rows, section by section, as (kind, title, value).
    func rows(of list: String = SectionStore.defaultList) throws -> [[RowContent]] {
        try self.list(list).snapshot().sections.map { $0.rows.map(\.content) }
    }
}

extension Data {
    init(_ text: String) { self.init(text.utf8) }
}

/// The message of a `RepositoryError.invalidData`, or a failure naming what was thrown instead.
func invalidDataMessage(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    do {
        try body()
        Issue.record("expected invalidData, but nothing was thrown", sourceLocation: sourceLocation)
    } catch RepositoryError.invalidData(let message) {
        #expect(!message.contains("\n"), "the message is one line", sourceLocation: sourceLocation)
        return message
    } catch {
        Issue.record("expected invalidData, got \(error)", sourceLocation: sourceLocation)
    }
    return ""
}
