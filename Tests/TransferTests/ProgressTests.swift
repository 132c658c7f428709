import Foundation
import Testing

@testable import Repository
@testable import Transfer

/// The progress an import or export reports: it only grows, and its last report accounts for
/// every row and byte.
@Suite("Progress")
struct ProgressTests {
    /// Records with a varying number of keys, so that rows do not line up with batches.
    private func records(_ count: Int) -> [String] {
        (0..<count).map { index in
            let fields = (0..<(index % 7)).map { "\"k\($0)\": \($0 * index)" }
            return "{" + (["\"name\": \"r\(index)\""] + fields).joined(separator: ", ") + "}"
        }
    }

    private func expectGrowing(_ reports: [TransferProgress], sourceLocation: SourceLocation = #_sourceLocation) {
        for (earlier, later) in zip(reports, reports.dropFirst()) {
            #expect(earlier.rows <= later.rows && earlier.bytes <= later.bytes, sourceLocation: sourceLocation)
        }
    }

    @Test func aLinesImportReportsEveryRowAndByte() throws {
        let fixture = try TransferFixture()
        let input = Data((records(3_000).joined(separator: "\n") + "\n").utf8)
        var reports: [TransferProgress] = []
        try fixture.store.importRecords(
            lines: fixture.fileHandle("r.jsonl", contents: input), options: RecordsImportOptions(list: "default")
        ) { reports.append($0) }
        let rows = try fixture.store.lists().first { $0.name == SectionStore.defaultList }!.rowCount
        expectGrowing(reports)
        #expect(reports.count > 2)
        #expect(reports.last?.rows == rows)
        #expect(reports.last?.bytes == input.count)
    }

    @Test func aNativeImportAndItsExportReportEveryRow() throws {
        let fixture = try TransferFixture()
        try fixture.store.importRecords(
            Data(("[" + records(2_000).joined(separator: ",") + "]").utf8), options: RecordsImportOptions(list: "default"))
        let rows = try fixture.store.lists().first { $0.name == SectionStore.defaultList }!.rowCount
        var exported = ""
        var exportReports: [TransferProgress] = []
        try fixture.list.exportJSON(progress: { exportReports.append($0) }) { exported += $0 }
        expectGrowing(exportReports)
        #expect(exportReports.last?.rows == rows)
        #expect(exportReports.last?.totalRows == rows)
        #expect(exportReports.last?.bytes == exported.utf8.count)

        let target = try fixture.freshStore("copy.db")
        var importReports: [TransferProgress] = []
        try target.importJSON(from: fixture.fileHandle("e.json", contents: Data(exported.utf8))) { importReports.append($0) }
        expectGrowing(importReports)
        #expect(importReports.last?.rows == rows)
        #expect(importReports.last?.bytes == exported.utf8.count)
    }
}
