import Foundation
import Testing

/// `import` and `export` through the binary: files, standard input, policies, records, and
/// their exit statuses.
@Suite struct TransferCommandTests {
    @Test func exportThenImportRecreatesTheList() throws {
        let cli = try Sectionctl()
        try cli.seed()
        try cli.ok(["row", "add", "1", "名前", "--value", "山田"])
        try cli.ok(["row", "add", "1", "Topic", "--kind", "topic"])
        try cli.ok(["section", "set", "0", "--empty-text", "Nothing"])
        let exported = try cli.ok(["export"])
        #expect(exported.contains("\"名前\""))
        let file = cli.directory.appendingPathComponent("backup.json").path
        #expect(try cli.ok(["export", "-o", file]) == "Wrote list \"default\" to \(file).\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == exported)

        let other = try Sectionctl()
        try other.initialize()
        let imported = try other.run(["--json", "import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try imported.json()["list"] as? String == "default")
        #expect(try other.orderedOutline() == cli.orderedOutline())
        #expect(try other.ok(["export"]) == exported)

        // From standard input, into another list.
        let piped = try other.run(["--list", "copy", "import", "-"], input: exported)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try other.orderedOutline(list: "copy") == cli.orderedOutline())
    }

    @Test func importIntoAListWithSectionsNeedsReplaceOrAppend() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let file = cli.directory.appendingPathComponent("backup.json").path
        try cli.ok(["export", "-o", file])
        let refused = try cli.run(["import", file])
        #expect(refused.status == 1)
        #expect(try cli.snapshot()["version"] as? Int == 5)
        try cli.ok(["import", file, "--append"])
        #expect(try cli.orderedOutline().count == 4)
        try cli.ok(["import", file, "--replace"])
        #expect(try cli.orderedOutline().count == 2)
    }

    @Test func recordsImport() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let records = #"[{"name": "山田", "age": 36, "address": {"city": "東京", "zip": null}}, {"name": "Ada", "age": null}]"#
        let file = cli.directory.appendingPathComponent("people.json").path
        try records.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try cli.run(["--json", "import", "--records", file, "--title-key", "name"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.orderedOutline().map(\.first) == ["山田", "Ada"])
        let nl = "{\"name\": \"Grace\"}\n{\"name\": \"Linus\"}\n"
        #expect(try cli.run(["import", "--records", "--nl", "-", "--title-key", "name"], input: nl).status == 0)
        #expect(try cli.orderedOutline().map(\.first) == ["山田", "Ada", "Grace", "Linus"])
    }

    @Test func badInputExits65AndWritesNothing() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let file = cli.directory.appendingPathComponent("bad.json").path
        try "{\"format\": \"sectionctl\", \"lists\": [".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try cli.run(["import", file])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("sectionctl: error: "))
        let records = try cli.run(["import", "--records", "-"], input: "[{\"a\": 1}, {\"b\": ")
        #expect(records.status == 65)
        #expect(try cli.snapshot()["version"] as? Int == 5)
    }

    @Test func aMissingInputFileExits66() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["import", "nowhere.json"])
        #expect(result.status == 66)
        #expect(result.stderr == "sectionctl: error: no input file at nowhere.json\n")
        let template = try cli.run(["import", "--records", "-", "--template", "nowhere.json"], input: "[]")
        #expect(template.status == 66)
        #expect(template.stderr.contains("no template file at nowhere.json"))
    }

    @Test func importOptionsThatDoNotGoTogetherAreUsageErrors() throws {
        let cli = try Sectionctl()
        try cli.seed()
        for arguments in [
            ["import", "-", "--replace", "--append"], ["import", "-", "--nl"], ["import", "-", "--title-key", "k"],
            ["import", "-", "--template", "t.json"], ["import", "--records", "-", "--replace"], ["import"],
            ["export", "extra"], ["export", "-o"],
        ] {
            #expect(try cli.run(arguments).status == 2, "\(arguments)")
        }
    }
}
