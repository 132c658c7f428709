import Foundation
import Repository
import Testing
import Transfer

@testable import SectionCLI

/// Whole `show` and `export` written as the rows are read, inputs that are streams (pipes,
/// FIFOs, `<(…)`, `/dev/null`, `/dev/zero`), and `export -o` into what is at the path.
@Suite struct StreamingCommandTests {
    /// Runs a shell command line (for `<(…)`, FIFOs and redirections), with the binary as `$S`
    /// and the test database as `$DB`.
    func shell(_ cli: Sectionctl, _ script: String) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.environment = Sectionctl.environment(["S": Sectionctl.binary.path, "DB": cli.databasePath])
        process.currentDirectoryURL = cli.directory
        let output = cli.directory.appendingPathComponent("shell-\(UUID().uuidString).out")
        let errors = cli.directory.appendingPathComponent("shell-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errors), as: UTF8.self))
    }

    /// A list with field rows, multi-digit section indexes and an empty section.
    func seedWide(_ cli: Sectionctl) throws {
        try cli.initialize()
        let script =
            (0..<12).map { "section add 'S\($0)'" }
            + (0..<11).map { "row add 0 'row \($0)'" }
            + ["row add 11 名前 --kind field --value 山田", "row add 11 'a longer label' --kind field", "row add 10 Topic --kind topic", "save"]
        try cli.ok(["edit"], input: script.joined(separator: "\n") + "\n")
    }

    @Test func streamedShowIsTheListingOfTheWholeSnapshot() throws {
        let cli = try Sectionctl()
        try seedWide(cli)
        let store = try SectionStore(path: cli.databasePath, readOnly: true)
        for editing in [false, true] {
            let snapshot = try store.list("default").snapshot(editing: editing)
            let extra = editing ? ["--editing"] : []
            #expect(try cli.ok(["show"] + extra) == Listing(style: .plain).render(snapshot))
            #expect(try cli.ok(["--json", "show"] + extra) == JSONShapes.snapshot(snapshot).rendered + "\n")
        }
        let empty = try Sectionctl()
        try empty.initialize()
        let snapshot = try SectionStore(path: empty.databasePath, readOnly: true).list("default").snapshot()
        #expect(try empty.ok(["show"]) == Listing(style: .plain).render(snapshot))
        #expect(try empty.ok(["--json", "show"]) == JSONShapes.snapshot(snapshot).rendered + "\n")
    }

    @Test func aLongSectionAlignsItsLabelsBlockByBlock() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "Long"])
        let count = ListingWriter.blockSize + 2
        var lines = (0..<count).map { "row add 0 'l\($0)' --kind field --value v" }
        lines[1] = "row add 0 'a much longer label' --kind field --value v"
        try cli.ok(["edit"], input: (lines + ["save"]).joined(separator: "\n") + "\n")
        let shown = try cli.ok(["show"])
        // The first block pads its labels to its longest one; the next block has its own.
        #expect(shown.contains("\n  0:0     l0                   v  #1\n"))
        #expect(shown.contains("\n  0:\(count - 1)  l\(count - 1)  v  #\(count)\n"))
        let store = try SectionStore(path: cli.databasePath, readOnly: true)
        #expect(try cli.ok(["--json", "show"]) == JSONShapes.snapshot(try store.list("default").snapshot()).rendered + "\n")
        #expect(try cli.ok(["export"]) == (try store.list("default").exportJSON()))
    }

    @Test func streamedExportIsTheLibrarysDocument() throws {
        let cli = try Sectionctl()
        try seedWide(cli)
        try cli.ok(["list", "add", "other"])
        let store = try SectionStore(path: cli.databasePath, readOnly: true)
        #expect(try cli.ok(["export"]) == (try store.list("default").exportJSON()))
        #expect(try cli.ok(["export", "--all"]) == (try store.exportAllJSON()))
    }

    @Test func importReadsPipesFIFOsAndProcessSubstitution() throws {
        let cli = try Sectionctl()
        try seedWide(cli)
        let exported = try cli.ok(["export"])
        let file = cli.directory.appendingPathComponent("x.json").path
        try exported.write(toFile: file, atomically: true, encoding: .utf8)

        let substituted = try shell(cli, #"$S --db "$DB" --list copy import <(cat x.json)"#)
        #expect(substituted.status == 0, "\(substituted.stderr)")
        #expect(try cli.orderedOutline(list: "copy") == cli.orderedOutline())

        let fifo = try shell(cli, #"mkfifo in.fifo && (cat x.json > in.fifo &) && $S --db "$DB" --list fifo import in.fifo"#)
        #expect(fifo.status == 0, "\(fifo.stderr)")
        #expect(try cli.orderedOutline(list: "fifo") == cli.orderedOutline())

        let records = try shell(
            cli,
            #"$S --db "$DB" --list rec import --records <(echo '[{"name": "a", "age": 3}]') --template <(echo '{"title": "{name}", "fields": [{"key": "age", "label": "Age"}]}')"#
        )
        #expect(records.status == 0, "\(records.stderr)")
        #expect(try cli.orderedOutline(list: "rec") == [["a", "Age", "name"]])

        let lines = try shell(cli, #"$S --db "$DB" --list nl import --records --nl <(printf '{"k": 1}\n{"k": 2}\n')"#)
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(try cli.orderedOutline(list: "nl").count == 2)
    }

    @Test func emptyAndEndlessInputsAreBadData() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try cli.ok(["export", "--all"])
        for arguments in [["import", "/dev/null"], ["--list", "x", "import", "-"], ["import", "--records", "/dev/null"]] {
            let empty = try cli.run(arguments)
            #expect(empty.status == 65, "\(arguments): \(empty.stderr)")
            #expect(!empty.stderr.contains("permission"))
        }
        let zeros = try shell(cli, #"$S --db "$DB" --list x import - < /dev/zero"#)
        #expect(zeros.status == 65)
        #expect(
            zeros.stderr
                == "sectionctl: error: invalid JSON at line 1, column 1 (byte offset 0): unexpected character U+0000; expected a value\n")
        #expect(try cli.ok(["export", "--all"]) == before)
    }

    @Test func aBadDocumentWritesNothingEvenAfterGoodLists() throws {
        let cli = try Sectionctl()
        try cli.seed()
        try cli.ok(["list", "add", "zz"])
        var document = try cli.ok(["export", "--all"])
        let fresh = try Sectionctl()
        try fresh.initialize()
        let before = try fresh.ok(["export", "--all"])
        document = document.replacingOccurrences(of: "\"zz\"", with: "\"zz\", \"sections\": 5")
        let file = fresh.directory.appendingPathComponent("bad.json").path
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try fresh.run(["import", file])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("$.lists[1].sections must be an array; found a number"))
        #expect(try fresh.ok(["export", "--all"]) == before)
    }

    @Test func exportWritesThroughSymlinksAndIntoFIFOs() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let exported = try cli.ok(["export"])
        let directory = cli.directory
        let target = directory.appendingPathComponent("target.json").path
        let link = directory.appendingPathComponent("link.json").path
        try "old\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.json")
        try cli.ok(["export", "-o", link])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.json")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == exported)

        // A regular file is replaced whole, keeping its permissions.
        #expect(chmod(target, 0o600) == 0)
        try cli.ok(["row", "add", "0", "one more"])
        let updated = try cli.ok(["export"])
        try cli.ok(["export", "-o", target])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == updated)
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".target.json.") }
        #expect(leftovers.isEmpty)

        // A FIFO is written into, not replaced: its reader gets the document.
        let fifo = try shell(
            cli, #"mkfifo out.fifo && (cat out.fifo > got.json &) && $S --db "$DB" export -o out.fifo && wait && sleep 0.2 && test -p out.fifo"#)
        #expect(fifo.status == 0, "\(fifo.stderr)")
        #expect(try String(contentsOfFile: directory.appendingPathComponent("got.json").path, encoding: .utf8) == updated)

        // /dev/stdout is written into as well.
        let stdout = try shell(cli, #"$S --db "$DB" export -o /dev/stdout | head -c 1000000"#)
        #expect(stdout.stdout.hasPrefix(updated))

        // A failed export leaves the path alone.
        let missing = try cli.run(["--list", "nope", "export", "-o", target])
        #expect(missing.status == 1)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == updated)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.json").path))
        #expect(try cli.run(["--list", "nope", "export", "-o", "new.json"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.json").path))
    }
}
