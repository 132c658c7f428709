import Foundation
import TestSupport
import Testing

import Repository

@Suite("README")
struct ReadmeExampleTests {
    @Test func theLibraryExampleRunsAndIsTheOneInTheReadme() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tasks.db")

        // README example begins
        let store = try SectionStore(path: path, create: true)

        // Two sections, three rows in the first.
        try store.apply(.addSection(title: "To do"))
        try store.apply(.addSection(title: "Done"))
        for title in ["Buy milk", "Write report", "Call Aiko"] {
            try store.apply(.addRow(.text(title), to: RowDestination(section: .index(0), index: .end)))
        }

        // Move 0:1 into the empty section. The change says what a table view animates.
        let change = try store.apply(.moveRow(.at(0, 1), to: .at(1, 0)))
        // change.version == 6, change.changeset.movedRows == [0:1 → 1:0]

        // An edit session: edits go to a draft; save writes them all in one transaction.
        let session = try store.beginEditing()
        try session.apply(.moveRow(.at(1, 0), to: .at(0, 0)))
        let footer = session.outline.sections[1].footer(editing: true)  // "No Data": empty while editing
        let saved = try session.save()  // or session.cancel()

        let snapshot = try store.snapshot()
        // README example ends

        #expect(change.version == 6)
        #expect(change.changeset.movedRows == [.init(from: RowPath(section: 0, row: 1), to: RowPath(section: 1, row: 0))])
        #expect(footer == "No Data")
        #expect(saved.version == 7)
        #expect(snapshot.sections.map { $0.rows.map(\.title) } == [["Write report", "Buy milk", "Call Aiko"], []])

        // The README shows exactly these lines.
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let example = source.components(separatedBy: "// README example begins\n")[1]
            .components(separatedBy: "        // README example ends")[0]
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.count >= 8 ? String($0.dropFirst(8)) : String($0) }
            .joined(separator: "\n")
        let readmeURL = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "README.md")
        let readme = try String(contentsOf: readmeURL, encoding: .utf8)
        #expect(readme.contains(example), "README.md's library example differs from this test's")
    }
}
