import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

@Suite("Schema and migrations")
struct MigrationTests {
    @Test func aFreshDatabaseIsMigratedAndHasTheDefaultList() throws {
        let fixture = try StoreFixture()
        let db = try Connection(path: fixture.path, mode: .readOnly)
        #expect(try db.scalarInt("PRAGMA user_version") == Int64(SectionStore.schemaVersion))
        #expect(try db.scalarInt("PRAGMA application_id") == 0x5345_4354)
        let recorded = try db.query("SELECT version, name FROM sectionctl_migrations ORDER BY version") { "\($0.int(0))_\($0.string(1))" }
        #expect(recorded == EmbeddedMigration.all.map { "\($0.version)_\($0.name)" })
        #expect(try db.query("PRAGMA journal_mode") { $0.string(0) } == ["wal"])
        #expect(try fixture.store.lists().map(\.name) == ["default"])
        let objects = try db.query("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name") { $0.string(0) }
        for name in ["lists", "sections", "rows", "ordered_sections", "ordered_rows", "sectionctl_migrations"] {
            #expect(objects.contains(name), "missing \(name)")
        }
    }

    @Test func theEmbeddedMigrationsAreTheFilesInMigrations() throws {
        let directory = packageRoot.appending(path: "Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files.count == EmbeddedMigration.all.count)
        for (file, migration) in zip(files, EmbeddedMigration.all) {
            #expect(file == String(format: "%04d_%@.sql", migration.version, migration.name))
            let text = try String(contentsOf: directory.appending(path: file), encoding: .utf8)
            #expect(Self.writingConstants(into: text).trimmingCharacters(in: .newlines) == migration.sql.trimmingCharacters(in: .newlines))
        }
        let serverDirectory = directory.appending(path: "postgres")
        let serverFiles = try FileManager.default.contentsOfDirectory(atPath: serverDirectory.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(serverFiles.count == EmbeddedMigration.postgres.count)
        for (file, migration) in zip(serverFiles, EmbeddedMigration.postgres) {
            let text = try String(contentsOf: serverDirectory.appending(path: file), encoding: .utf8)
            #expect(Self.writingConstants(into: text).trimmingCharacters(in: .newlines) == migration.sql.trimmingCharacters(in: .newlines))
        }
    }

    /// The contract's numbers (product.md, README), as the migration embedder writes them into
    /// the SQL of both engines from Migrations/constants.txt.
    static let constants: [String: String] = [
        "rank_levels": "4", "rank_fanout": "32", "rank_maximum_children": "64", "rank_minimum_children": "8",
        "journal_kept_versions": "1000", "journal_reload": #"{"reload":true}"#, "undo_kept_steps": "100",
        "rank_level_list": "1, 2, 3, 4", "rank_spans": "(1, 32), (2, 1024), (3, 32768), (4, 1048576)",
        "position_minimum": "1", "position_maximum": "4611686018427387903", "position_parking": "-1",
        "position_first": "2305843009213693952", "position_step": "4294967296", "spread_density_growth": "1.5", "spread_top_level": "62",
    ]

    static func writingConstants(into sql: String) -> String {
        var text = sql
        for (name, value) in constants { text = text.replacing("{{\(name)}}", with: value) }
        #expect(!text.contains("{{"), "a placeholder the contract does not name is left in: \(text)")
        return text
    }

    @Test func theSharedConstantsAreTheContractsNumbers() {
        #expect(SchemaConstants.rankLevels == 4)
        #expect(SchemaConstants.rankFanout == 32)
        #expect(SchemaConstants.rankMaximumChildren == 64)
        #expect(SchemaConstants.rankMinimumChildren == 8)
        #expect(SchemaConstants.journalKeptVersions == 1_000)
        #expect(SchemaConstants.journalReload == #"{"reload":true}"#)
        #expect(SchemaConstants.undoKeptSteps == 100)
        #expect(SchemaConstants.positionMinimum == 1)
        #expect(SchemaConstants.positionMaximum == (1 << 62) - 1)
        #expect(SchemaConstants.positionParking == -1)
        #expect(SchemaConstants.positionFirst == 1 << 61)
        #expect(SchemaConstants.positionStep == 1 << 32)
        #expect(SchemaConstants.spreadDensityGrowth == 1.5)
        #expect(SchemaConstants.spreadTopLevel == 62)
    }

    @Test func reopeningIsIdempotent() throws {
        let fixture = try StoreFixture()
        try fixture.list.apply(.addSection(title: "kept"))
        for _ in 0..<3 {
            let again = try SectionStore(path: fixture.path, create: true)
            #expect(try again.list("default").snapshot().sections.map(\.title) == ["kept"])
        }
        let db = try Connection(path: fixture.path, mode: .readOnly)
        #expect(try db.scalarInt("SELECT count(*) FROM sectionctl_migrations") == Int64(EmbeddedMigration.all.count))
        #expect(try db.scalarInt("SELECT count(*) FROM lists") == 1)
    }

    @Test func theJournalMovesToARowidTableWithEveryEntryAndItsTriggers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("schema10.db")
        do {
            // A file as schema 10 left it, with journal entries: plain SQL's reload marks.
            let db = try Connection(path: path, mode: .readWriteCreate)
            try Migrator.migrate(db, through: 10)
            for title in ["a", "b", "c"] {
                try db.run("INSERT INTO sections (list_id, position, title) VALUES (1, ?, ?)", Int64(title.unicodeScalars.first!.value), title)
            }
        }
        func entries() throws -> [String] {
            let db = try Connection(path: path, mode: .readOnly)
            return try db.query("SELECT list_id, version, changes FROM journal ORDER BY list_id, version") {
                "\($0.int64(0)) \($0.int64(1)) \($0.string(2))"
            }
        }
        let before = try entries()
        #expect(before.count == 3)

        let store = try SectionStore(path: path)
        #expect(try entries() == before)
        let db = try Connection(path: path, mode: .readOnly)
        let definition = try db.queryFirst("SELECT sql FROM sqlite_schema WHERE name = 'journal'") { $0.string(0) } ?? ""
        #expect(!definition.contains("WITHOUT ROWID"))
        #expect(try store.check() == [])
        // The triggers made again work: sectionctl's next change journals under the next
        // version, plain SQL is still refused a journal entry, and deleting the list empties it.
        let change = try store.list(SectionStore.defaultList).apply(.addSection(title: "d"))
        #expect(try store.list(SectionStore.defaultList).changes(since: change.version.previous).changeset == change.changeset)
        let writer = try Connection(path: path, mode: .readWrite)
        #expect(throws: SQLiteError.self) {
            try writer.run("INSERT INTO journal (list_id, version, changes) VALUES (1, 99, '{}')")
        }
        _ = try store.createList(named: "other")
        _ = try store.deleteList(SectionStore.defaultList, force: true)
        #expect(try db.scalarInt("SELECT count(*) FROM journal WHERE list_id = 1") == 0)
    }

    /// A file as schema 12 left it keeps its undo log through the migration that adds
    /// `undo_log.last_id` (`0013_compact_bulk_history.sql`): every entry, with NULL there, and
    /// its steps undo as before.
    @Test func theUndoLogKeepsEveryEntryWhenItGainsRuns() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("schema12.db")
        do {
            // Changes made by sectionctl's own writes on a file at schema 12: a step of section
            // inserts, each logged on its own, then a row added.
            let db = try Connection(path: path, mode: .readWriteCreate)
            try Migrator.migrate(db, through: 12)
            let engine = SQLiteEngine(db)
            for title in ["a", "b", "c"] {
                try db.inTransaction(.immediate) {
                    try engine.beginWriterMark()
                    let list = try engine.listRecord(named: SectionStore.defaultList)
                    _ = try engine.insertSection(
                        title: title, emptyText: nil, position: Int64(title.unicodeScalars.first!.value) << 32, in: list, askingReplica: false)
                    var changeset = Changeset()
                    changeset.insertedSections = [try engine.sectionCount(of: list) - 1]
                    changeset.insertedSectionIDs = [SectionID(try #require(try db.scalarInt("SELECT max(id) FROM sections")))]
                    _ = try engine.commitChange(changeset.json, to: list, history: .change)
                    try engine.endWriterMark()
                }
            }
        }
        func log() throws -> [String] {
            let db = try Connection(path: path, mode: .readOnly)
            return try db.query("SELECT id, step, list_id, action, target, item_id FROM undo_log ORDER BY id") {
                "\($0.int64(0)) \($0.int64(1)) \($0.int64(2)) \($0.string(3)) \($0.string(4)) \($0.int64(5))"
            }
        }
        let before = try log()
        #expect(before.count == 3)

        let store = try SectionStore(path: path)
        #expect(try log() == before)
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.scalarInt("SELECT count(*) FROM undo_log WHERE last_id IS NULL") == 3)
        #expect(try store.check() == [])
        let list = store.list(SectionStore.defaultList)
        #expect(try list.outline().sections.map(\.title) == ["a", "b", "c"])
        for _ in 0..<3 { try list.undo() }
        #expect(try list.outline().sections.isEmpty)
        #expect(try store.check() == [])
    }

    @Test func aReplicaFileLosesTheServersListIDAndKeepsEverythingElse() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("schema13.db")
        let replicaID = String(repeating: "5f", count: 16)
        do {
            // A replica file as schema 13 left it: the server's id of the list was kept, as 0.
            let db = try Connection(path: path, mode: .readWriteCreate)
            try Migrator.migrate(db, through: 13)
            try db.run(
                """
                INSERT INTO replica (only_row, server, list_id, server_list_id, server_list, replica_id, server_version, local_version,
                    next_sequence, acknowledged)
                VALUES (1, 'http://127.0.0.1:8080/lists/groceries', 1, 0, 'groceries', ?, 7, 4, 3, 2)
                """, replicaID)
        }
        let status = try SectionStore(path: path).replicaStatus()
        #expect(status.server == "http://127.0.0.1:8080/lists/groceries")
        #expect(status.serverList == "groceries" && status.list == SectionStore.defaultList)
        #expect(status.replicaID == replicaID && status.serverVersion == 7)
        let db = try Connection(path: path, mode: .readOnly)
        let columns = try db.query("SELECT name FROM pragma_table_info('replica') ORDER BY cid") { $0.string(0) }
        #expect(
            columns == [
                "only_row", "server", "list_id", "server_list", "replica_id", "server_version", "local_version", "next_sequence", "acknowledged",
                "verified_version", "diverged_version",
            ])
        #expect(try db.scalarInt("SELECT next_sequence * 10 + acknowledged FROM replica") == 32)
    }

    @Test func aNewerSchemaIsRefusedAndLeftUntouched() throws {
        let fixture = try StoreFixture()
        let newer = SectionStore.schemaVersion + 1
        do {
            let db = try Connection(path: fixture.path, mode: .readWrite)
            try db.execute(script: "INSERT INTO sectionctl_migrations (version, name) VALUES (\(newer), 'future'); PRAGMA user_version = \(newer);")
        }
        let bytes = try Data(contentsOf: URL(filePath: fixture.path))
        #expect(throws: RepositoryError.newerSchema(path: fixture.path, found: newer, known: SectionStore.schemaVersion)) {
            try SectionStore(path: fixture.path, create: true)
        }
        #expect(try Data(contentsOf: URL(filePath: fixture.path)) == bytes)
    }

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.db")
        let bytes = Data("these are my notes, not a database\n".utf8) + Data(repeating: 0x41, count: 4096)
        try bytes.write(to: URL(filePath: path))
        #expect(throws: RepositoryError.notADatabase(path: path)) { try SectionStore(path: path, create: true) }
        #expect(try Data(contentsOf: URL(filePath: path)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func someoneElsesDatabaseIsRefusedAndLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other.db")
        do {
            let db = try Connection(path: path, mode: .readWriteCreate)
            try db.execute(script: "CREATE TABLE rows (x); INSERT INTO rows VALUES (1);")
        }
        let bytes = try Data(contentsOf: URL(filePath: path))
        #expect(throws: RepositoryError.notOurDatabase(path: path)) { try SectionStore(path: path, create: true) }
        #expect(try Data(contentsOf: URL(filePath: path)) == bytes)
    }

    @Test func aMissingDatabaseIsNotCreatedUnlessAsked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.db")
        #expect(throws: RepositoryError.databaseMissing(path: path)) { try SectionStore(path: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
        // An empty file is a database waiting for `init`, not one to fill silently.
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: RepositoryError.databaseMissing(path: path)) { try SectionStore(path: path) }
        #expect(try Data(contentsOf: URL(filePath: path)).isEmpty)
        _ = try SectionStore(path: path, create: true)
        #expect(try SectionStore(path: path).lists().map(\.name) == ["default"])
    }

    @Test func aReadOnlyStoreShowsButDoesNotChange() throws {
        let fixture = try StoreFixture()
        try fixture.list.apply(.addSection(title: "kept"))
        let reader = try SectionStore(path: fixture.path, readOnly: true)
        #expect(reader.isReadOnly)
        #expect(try reader.list("default").snapshot().sections.map(\.title) == ["kept"])
        #expect(throws: RepositoryError.readOnly(path: fixture.path)) { try reader.list("default").apply(.addSection(title: "no")) }
        let session = try reader.list("default").beginEditing()
        try session.apply(.addSection(title: "drafted"))
        #expect(throws: RepositoryError.readOnly(path: fixture.path)) { try session.save() }
    }

    @Test func theViewsGiveDenseIndexes() throws {
        let fixture = try StoreFixture()
        try fixture.list.apply(.addSection(title: "A"))
        try fixture.list.apply(.addSection(title: "B"))
        try fixture.list.apply(.addRow(.text("b0"), to: .at(1, 0)))
        try fixture.list.apply(.addRow(.text("b-first"), to: .at(1, 0)))
        try fixture.list.apply(.moveSection(.index(1), to: 0))
        let db = try Connection(path: fixture.path, mode: .readOnly)
        let at = try db.queryFirst(
            "SELECT title FROM ordered_rows WHERE list = 'default' AND section_index = 0 AND row_index = 1"
        ) { $0.string(0) }
        #expect(at == "b0")
        let paths = try db.query("SELECT path, title FROM ordered_rows ORDER BY section_index, row_index") { "\($0.string(0)) \($0.string(1))" }
        #expect(paths == ["0:0 b-first", "0:1 b0"])
        let counts = try db.query("SELECT section_index, title, row_count FROM ordered_sections ORDER BY section_index") {
            "\($0.int(0)) \($0.string(1)) \($0.int(2))"
        }
        #expect(counts == ["0 B 2", "1 A 0"])
    }

    @Test func schemaConstraintsHold() throws {
        let fixture = try StoreFixture()
        try fixture.list.apply(.addSection(title: "A"))
        let db = try Connection(path: fixture.path, mode: .readWrite)
        try db.execute(script: "PRAGMA foreign_keys = ON")
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO rows (section_id, position, kind, title) VALUES (1, 5, 'bogus', 'x')") }
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO rows (section_id, position, kind, title, value) VALUES (1, 5, 'text', 'x', 'v')")
        }
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO rows (section_id, position, title) VALUES (99, 5, 'x')") }
        try db.run("INSERT INTO rows (section_id, position, title) VALUES (1, 5, 'x')")
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO rows (section_id, position, title) VALUES (1, 5, 'y')") }
        #expect(throws: SQLiteError.self) { try db.run("UPDATE rows SET position = 'five'") }
        #expect(try db.scalarInt("SELECT row_count FROM sections WHERE id = 1") == 1)
    }
}
