import Foundation
import PostgresCluster
import Repository
import RepositoryPostgres
import Synchronization
import TestSupport
import Testing

/// The examples in the library's doc comments, run as tests. Each example is written here once,
/// between `// doc example: NAME begins` and `// doc example: NAME ends`, as an app would write it
/// (through `import Repository`, without `@testable`), and `theExamplesAreTheOnesInTheDocComments`
/// checks that it is the one in the doc comment of the declaration `NAME` names, and that no doc
/// comment of `Sources/Repository` shows an example that is not run here.
@Suite("Doc examples")
struct DocExampleTests {
    @Test func sectionStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tasks.db")

        // doc example: SectionStore begins
        let store = try SectionStore(path: path, create: true)
        let list = store.list(SectionStore.defaultList)  // a new database has the list "default"
        try list.apply(.addSection(title: "To do"))
        try list.apply(.addRow(.text("Buy milk"), to: .init(section: .index(0), index: .end)))
        let snapshot = try list.snapshot()  // snapshot.sections[0].rows[0].title == "Buy milk"
        // doc example: SectionStore ends

        #expect(snapshot.sections.map(\.title) == ["To do"])
        #expect(snapshot.sections[0].rows[0].title == "Buy milk")
        #expect(snapshot.version == 2)
    }

    @Test func listHandle() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store

        // doc example: ListHandle begins
        try store.createList(named: "work")
        let work = store.list("work")
        try work.apply(.addSection(title: "To do"))  // blocks until written, in async code too
        try await work.async.apply(.addRow(.text("Buy milk"), to: .at(0, 0)))  // off the cooperative pool
        let cell = try await work.async.row(at: RowPath(section: 0, row: 0))  // cell.row.title == "Buy milk"
        let feed = work.updates()  // the versions committed from now on, as they happen
        // doc example: ListHandle ends

        #expect(cell.row.title == "Buy milk")
        #expect(cell.version == 2)
        #expect(feed.bufferLimit == ListFeed.defaultBufferLimit)
        #expect(try await store.list(SectionStore.defaultList).async.snapshot().sections.isEmpty, "the edits went to \"work\" only")
    }

    @Test func asyncListHandle() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store

        // doc example: AsyncListHandle begins
        let list = store.list("default")
        try await list.async.apply(.addSection(title: "To do"))
        let outline = try await list.async.outline()
        let now = try list.snapshot()  // the blocking read, in async code too
        // doc example: AsyncListHandle ends

        #expect(outline.sections.map(\.title) == ["To do"])
        #expect(now.version == outline.version)
    }

    @Test func perform() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try await fixture.list.async.apply(.addSection(title: "To do"))

        // doc example: perform begins
        let problems = try await store.perform { store in try store.check() }
        // doc example: perform ends

        #expect(problems.isEmpty)
    }

    @Test(.needs(.postgreSQL)) func serverSupport() throws {
        let cluster = try #require(ThrowawayCluster.forStores)
        let location = StoreLocation(try cluster.newDatabase())

        // doc example: ServerSupport begins
        let store = try SectionStore(location: location, server: .postgres, create: true)
        // doc example: ServerSupport ends

        #expect(try store.lists().map(\.name) == [SectionStore.defaultList])
        #expect(store.server != nil)
    }

    @Test(.timeLimit(.minutes(1))) func updates() async throws {
        let updates = try await followUntilDeleted { store, recorder in
            let tableView = recorder
            func reload() { recorder.reload() }

            // doc example: updates begins
            for try await update in store.list("default").updates() {
                if let changeset = update.changeset { tableView.apply(changeset) } else { reload() }
            }
            // doc example: updates ends
        }
        #expect(updates.changesets.allSatisfy { $0.insertedSections == [0] }, "\(updates.changesets)")
        #expect(updates.reloads == 1, "the list's deletion comes as a reload")
    }

    @Test(.timeLimit(.minutes(1))) func listFeed() async throws {
        let updates = try await followUntilDeleted { store, recorder in
            func apply(_ changeset: Changeset, from version: ListVersion) { recorder.apply(changeset) }
            func reload() { recorder.reload() }

            // doc example: ListFeed begins
            for try await update in store.list("default").updates() {
                if let changeset = update.changeset { apply(changeset, from: update.from) } else { reload() }
            }
            // doc example: ListFeed ends
        }
        #expect(updates.changesets.allSatisfy { $0.insertedSections == [0] }, "\(updates.changesets)")
        #expect(updates.reloads == 1, "the list's deletion comes as a reload")
    }

    @Test func theExamplesAreTheOnesInTheDocComments() throws {
        let marked = try markedExamples()
        #expect(Set(marked.map(\.name)) == ["SectionStore", "ListHandle", "AsyncListHandle", "perform", "ServerSupport", "updates", "ListFeed"])
        let documented = try docExamples(under: packageRoot.appending(path: "Sources/Repository"))
        for example in marked {
            let places = documented.filter { $0.code == example.code }
            #expect(
                !places.isEmpty, "no doc comment in Sources/Repository shows the example \"\(example.name)\" as this test runs it:\n\(example.code)")
            for place in places {
                #expect(
                    place.declaration.contains(" \(example.name)") || place.declaration.contains(" \(example.name)("),
                    "\(place.file): the example \"\(example.name)\" documents \(place.declaration)")
            }
        }
        for place in documented where !marked.contains(where: { $0.code == place.code }) {
            Issue.record("\(place.file): the doc example of \(place.declaration) is not run by DocExampleTests:\n\(place.code)")
        }
    }

    // MARK: - Helpers

    /// What a feed's consumer got, as a table view would.
    final class Recorder: Sendable {
        private let state = Mutex<(changesets: [Changeset], reloads: Int)>(([], 0))
        func apply(_ changeset: Changeset) { state.withLock { $0.changesets.append(changeset) } }
        func reload() { state.withLock { $0.reloads += 1 } }
        var got: (changesets: [Changeset], reloads: Int) { state.withLock { $0 } }
    }

    /// Runs `consume` on a feed's consumer task while sections are added to the list "default"
    /// (until the consumer has seen one), then deletes the list, which ends the feed.
    func followUntilDeleted(
        _ consume: @escaping @Sendable (SectionStore, Recorder) async throws -> Void
    ) async throws -> (changesets: [Changeset], reloads: Int) {
        let fixture = try StoreFixture()
        let store = fixture.store
        let recorder = Recorder()
        let consumer = Task { try await consume(store, recorder) }
        // The feed starts at the version the list is at when the consumer asks for it: add
        // sections until it has seen one.
        for _ in 0..<400 where recorder.got.changesets.isEmpty {
            try await fixture.list.async.apply(.addSection(title: "New", at: 0))
            try await Task.sleep(for: .milliseconds(25))
        }
        try fixture.list.delete(force: true)
        try await consumer.value
        let got = recorder.got
        #expect(!got.changesets.isEmpty, "the consumer saw a change")
        return got
    }

    /// A marked example of this file: its name and its lines, their common indent taken off.
    struct Example {
        var name: String
        var code: String
    }

    func markedExamples() throws -> [Example] {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        var examples: [Example] = []
        var current: (name: String, lines: [Substring])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.drop(while: { $0 == " " })
            if let open = current {
                if text == "// doc example: \(open.name) ends" {
                    examples.append(Example(name: open.name, code: Self.dedented(open.lines)))
                    current = nil
                } else {
                    current?.lines.append(line)
                }
            } else if text.hasPrefix("// doc example: "), text.hasSuffix(" begins") {
                current = (String(text.dropFirst("// doc example: ".count).dropLast(" begins".count)), [])
            }
        }
        return examples
    }

    static func dedented(_ lines: [Substring]) -> String {
        let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.count))) }.joined(separator: "\n")
    }

    /// A ```swift block of a doc comment, and the first line of the declaration it documents.
    struct DocExample {
        var file: String
        var code: String
        var declaration: String
    }

    func docExamples(under directory: URL) throws -> [DocExample] {
        var found: [DocExample] = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            var index = 0
            while index < lines.count {
                guard lines[index].trimmingCharacters(in: .whitespaces) == "/// ```swift" else {
                    index += 1
                    continue
                }
                var code: [String] = []
                index += 1
                while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "/// ```" {
                    let text = lines[index].drop(while: { $0 == " " }).dropFirst(3)
                    code.append(String(text.hasPrefix(" ") ? text.dropFirst() : text))
                    index += 1
                }
                var declaration = index
                while declaration < lines.count, lines[declaration].trimmingCharacters(in: .whitespaces).hasPrefix("///") { declaration += 1 }
                found.append(
                    DocExample(
                        file: file.lastPathComponent, code: code.joined(separator: "\n"),
                        declaration: declaration < lines.count ? lines[declaration].trimmingCharacters(in: .whitespaces) : "nothing"))
            }
        }
        return found
    }
}
