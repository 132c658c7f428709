import Foundation
import SQLite

struct NativeDocument {
    var lists: [NativeList]
    init(lists: [NativeList]) { self.lists = lists }
    init(data: Data) throws { throw RepositoryError.invalidData("native import is not available yet") }
    func json() -> String { "" }
}

struct NativeList {
    var name: String
}

extension Connection {
    func exportedList(_ list: ListRecord) throws -> NativeList { NativeList(name: list.name) }
}

enum RecordSource {
    case data(Data)
    case lines(LineReader)
    static func array(_ data: Data) throws -> RecordSource { .data(data) }
}

struct LineReader {
    let handle: FileHandle
}

enum TemplateReader {
    static func template(from json: Data) throws -> RecordTemplate {
        throw RepositoryError.invalidData("templates are not available yet")
    }
}

extension SectionStore {
    func importList(_ list: NativeList, policy: ImportConflictPolicy, db: Connection) throws -> Change {
        throw RepositoryError.invalidData("native import is not available yet")
    }

    func importRecords(from source: RecordSource, options: RecordsImportOptions, db: Connection) throws -> Change {
        throw RepositoryError.invalidData("records import is not available yet")
    }
}
