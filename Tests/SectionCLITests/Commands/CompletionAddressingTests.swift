import Foundation
import Repository
import SQLite
import TestSupport
import Testing

@testable import CommandLineSupport
@testable import SectionCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Section titles and list names meant to make completion name the wrong thing: words that read
/// as an index, an id, an option or a row address, words a shell expands or splits, invisible and
/// bidirectional characters, titles shared by two sections, and the script's own marker.
enum HostileNames {
    /// Section titles, in the order they are added after the first section, "Inbox" (#1), so that
    /// "#1" and "#2" would name other sections.
    static let titles: [String] = [
        "#1", "#2", "#-1", "0", "3", "007", "99999999999999999999",
        "-x", "--force", "-", "--", "-1",
        "~", "~root", "~/x", "=ls", "%self", "^x", "#hash", "!x",
        "To do", " lead", "trail ", "a  b",
        "dup", "dup", "\u{E9}", "e\u{301}",
        "x:1", "a:end", ":",
        "$(touch pwned)", "`touch pwned`", "$HOME", "*", "?", "[ab]", "{a,b}", "a;b", "a|b", "a&b", "<x", "(p)",
        "'q", "\"dq", "b\\s", "it's",
        "rt\u{202E}l", "\u{200E}lrm", "zw\u{200B}sp", "soft\u{AD}hy", "tag\u{E0041}", "\u{FEFF}bom", "new\nline", "tab\tx",
        "esc\u{1B}[31m", "bell\u{7}", "c1\u{9B}",
        "", "@files", "Δέλτα", "日本",
    ]

    /// Titles set with plain SQL, as bytes: not UTF-8, and one with a NUL.
    static let rawTitles: [[UInt8]] = [[0x61, 0xFF, 0x62], [0x61, 0x00, 0x62]]

    /// List names besides "default".
    static let lists: [String] = ["work", "my list", "-x", "~home", "$(touch pwned)", "rt\u{202E}l", "tab\tx", "@files", "it's"]

    /// A database with "Inbox" and every title in the default list, the raw titles after them, and
    /// the lists.
    static func database() throws -> Sectionctl {
        let cli = try Sectionctl()
        try cli.initialize()
        for title in ["Inbox"] + titles { try cli.ok(["section", "add", "--", title]) }
        for (index, _) in rawTitles.enumerated() { try cli.ok(["section", "add", "raw \(index)"]) }
        let db = try Connection(path: cli.databasePath, mode: .readWrite)
        for (index, bytes) in rawTitles.enumerated() {
            let hex = bytes.map { String(format: "%02X", $0) }.joined()
            try db.execute(script: "UPDATE sections SET title = CAST(X'\(hex)' AS TEXT) WHERE title = 'raw \(index)';")
        }
        for name in lists { try cli.ok(["list", "add", "--", name]) }
        return cli
    }

    /// The sections of the default list.
    static func sections(in path: String) throws -> [SectionInfo] {
        try SectionStore(path: path, readOnly: true).list("default").outline().sections
    }
}

/// Which word completion offers for each section and list (`CompletionWords`): the title itself
/// only when, typed, it names that section and nothing else.
@Suite struct CompletionWordsTests {
    private func sections(_ titles: [String]) -> [SectionInfo] {
        titles.enumerated().map { SectionInfo(id: SectionID(Int64($0.offset + 1)), index: $0.offset, title: $0.element, rowCount: 0) }
    }

    @Test func aTitleThatReadsAsSomethingElseIsOfferedAsItsID() {
        let titles = ["Inbox", "#1", "2", "-x", "~home", "", "rt\u{202E}l", "new\nline", "@files", "a\u{FFFD}b", "To do", "x:1", "#hash", "$HOME"]
        let words = CompletionWords.sections(sections(titles)).map(\.word)
        #expect(words == ["Inbox", "#2", "#3", "#4", "#5", "#6", "#7", "#8", "#9", "#10", "To do", "x:1", "#hash", "$HOME"])
    }

    @Test func sharedTitlesAreOfferedAsIDsDescribedByTheTitle() {
        let offered = CompletionWords.sections(sections(["dup", "Inbox", "dup", "\u{E9}", "e\u{301}"]))
        #expect(offered.map(\.word) == ["#1", "Inbox", "#3", "#4", "#5"])
        #expect(offered.map(\.description) == ["\"dup\"", nil, "\"dup\"", "\"\u{E9}\"", "\"e\u{301}\""])
        #expect(offered.map(\.line) == ["#1\t\"dup\"", "Inbox", "#3\t\"dup\"", "#4\t\"\u{E9}\"", "#5\t\"e\u{301}\""])
    }

    @Test func descriptionsAreEscapedAndShort() {
        let long = String(repeating: "x", count: 5_000)
        let offered = CompletionWords.sections(sections(["rt\u{202E}l", "tab\tx", "#1" + long]))
        #expect(offered[0].description == "\"" + TextEscaping.escaped("rt\u{202E}l") + "\"")
        #expect(offered[1].description == "\"tab\\tx\"")
        #expect((offered[2].description?.utf8.count ?? 0) < 300)
        for candidate in offered {
            #expect(!candidate.line.dropFirst(candidate.word.count + 1).contains("\t") && !candidate.line.contains("\n"))
        }
    }

    @Test func listsThatCannotBeOfferedAsTypedAreLeftOut() {
        #expect(
            CompletionWords.lists(["default", "my list", "-x", "~home", "", "rt\u{202E}l", "@files", "#1", "2"]).map(\.word)
                == ["default", "my list", "#1", "2"])
    }

    /// The section a word names, as the store looks it up: by index, by id, or by the one title
    /// equal to it byte for byte (SQLite's comparison); nil when it names none.
    private func resolve(_ word: String, in sections: [SectionInfo]) -> SectionID? {
        switch SectionAddress(word).reference {
        case .index(let index): return sections.indices.contains(index) ? sections[index].id : nil
        case .id(let id): return sections.first { $0.id == id }?.id
        case .title(let title):
            let matches = sections.filter { $0.title.utf8.elementsEqual(title.utf8) }
            return matches.count == 1 ? matches[0].id : nil
        }
    }

    /// Random lists of titles from an alphabet of digits, signs, quotes, blanks, marks, controls
    /// and invisible characters: every section gets one word, and every word names its section.
    @Test(arguments: propertySeeds([1, 2, 3, 4]))
    func everyWordNamesItsSection(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let alphabet: [String] = [
            "0", "7", "#", "-", "~", ":", "a", "B", " ", "\t", "\n", "'", "\"", "\\", "$", "*", "@", "files", "end", "\u{301}",
            "\u{E9}", "e", "\u{202E}", "\u{200B}", "\u{AD}", "\u{1B}", "\u{0}", "\u{FEFF}", "\u{FFFD}", "日",
        ]
        for _ in 0..<200 {
            let count = Int.random(in: 1...12, using: &random)
            let titles = (0..<count).map { _ in
                (0..<Int.random(in: 0...4, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
            }
            var list = sections(titles)
            // Ids need not follow the order, and may be far from the indexes.
            for index in list.indices { list[index].id = SectionID(Int64(Int.random(in: 1...40, using: &random)) * 100 + Int64(index)) }
            let offered = CompletionWords.sections(list)
            #expect(offered.count == list.count)
            #expect(Set(offered.map(\.word)).count == list.count, "two sections offered as one word: \(titles)")
            for (section, candidate) in zip(list, offered) {
                #expect(resolve(candidate.word, in: list) == section.id, "\(candidate.word) for \(section.title.debugDescription) in \(titles)")
                if candidate.word == section.title {
                    #expect(TextEscaping.escaped(section.title) == section.title && CompletionWords.isSafeAsTyped(section.title))
                }
            }
        }
    }
}

/// `__complete`: every word it prints, passed to the real command, names the section it stands
/// for; and it never blocks or waits long on a file it cannot read at once.
@Suite struct CompleteListingTests {
    /// Copies the database (and its write-ahead log, if any) to `name` in its directory.
    static func copy(_ cli: Sectionctl, to name: String) throws -> String {
        let path = cli.directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: cli.databasePath, toPath: path)
        if FileManager.default.fileExists(atPath: cli.databasePath + "-wal") {
            try FileManager.default.copyItem(atPath: cli.databasePath + "-wal", toPath: path + "-wal")
        }
        return path
    }

    /// The ids of the sections missing from the copy at `path`.
    static func deleted(from all: [SectionInfo], at path: String) throws -> [SectionID] {
        let left = Set(try HostileNames.sections(in: path).map(\.id))
        return all.map(\.id).filter { !left.contains($0) }
    }

    @Test func everyWordDeletesTheSectionItStandsFor() throws {
        let cli = try HostileNames.database()
        let sections = try HostileNames.sections(in: cli.databasePath)
        let listing = try cli.run(["__complete", "sections"])
        #expect(listing.status == 0 && listing.stderr == "")
        let lines = listing.lines
        #expect(lines.count == sections.count, "one word a section: \(lines)")
        for (index, (line, section)) in zip(lines, sections).enumerated() {
            let word = String(line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)[0])
            let copy = try Self.copy(cli, to: "copy-\(index).db")
            let result = try cli.run(["--db", copy, "section", "delete", word, "--force"], database: false)
            #expect(result.status == 0, "section delete \(word): \(result.stderr)")
            #expect(try Self.deleted(from: sections, at: copy) == [section.id], "\(word) for \(section.title.debugDescription)")
            if word == section.title {
                #expect(TextEscaping.escaped(word) == word, "\(word.debugDescription) is offered raw")
            } else {
                #expect(word == "#\(section.id)" && line == "#\(section.id)\t\"\(TextEscaping.escaped(section.title))\"")
            }
        }
    }

    @Test func everyListWordNamesItsList() throws {
        let cli = try HostileNames.database()
        let listing = try cli.run(["__complete", "lists"])
        let expected = ["default"] + HostileNames.lists.filter(CompletionWords.isSafeAsTyped)
        #expect(listing.lines.sorted() == expected.sorted())
        for name in listing.lines {
            #expect(try cli.run(["--list", name, "--json", "show"]).json()["list"] as? String == name)
        }
    }

    /// Runs `__complete WHAT` (with `arguments` before it) and waits for it to end, failing
    /// after the hang guard: the answer, or nil if it hung.
    static func complete(_ cli: Sectionctl, _ arguments: [String], environment: [String: String] = [:]) throws -> RunResult? {
        let launched = try cli.launch(arguments, environment: environment, database: false)
        guard waitUntil({ !launched.process.isRunning }) else {
            kill(launched.process.processIdentifier, SIGKILL)
            Issue.record("sectionctl \(arguments.joined(separator: " ")) had not ended after \(Int(hangGuardSeconds)) s")
            return nil
        }
        return try launched.finish()
    }

    @Test func neverOpensWhatIsNotARegularFile() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "Inbox"])
        let fifo = cli.directory.appendingPathComponent("fifo.db").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let linked = cli.directory.appendingPathComponent("link.db").path
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: fifo)
        for path in [fifo, linked, cli.directory.path, "/dev/zero", "/dev/null"] {
            for what in ["sections", "lists"] {
                let result = try Self.complete(cli, ["--db", path, "__complete", what])
                #expect(result?.status == 0 && result?.stdout == "" && result?.stderr == "", "\(path) \(what)")
            }
        }
        // Through $SECTIONCTL_DB too.
        let result = try Self.complete(cli, ["__complete", "sections"], environment: ["SECTIONCTL_DB": fifo])
        #expect(result?.status == 0 && result?.stdout == "")
    }

    @Test(arguments: ["-wal", "-shm", "-journal"])
    func neverOpensADatabaseWhoseCompanionFileIsNotRegular(suffix: String) throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "Inbox"])
        #expect(try cli.run(["__complete", "sections"]).stdout == "Inbox\n")
        try? FileManager.default.removeItem(atPath: cli.databasePath + suffix)
        #expect(mkfifo(cli.databasePath + suffix, 0o600) == 0)
        let result = try Self.complete(cli, ["--db", cli.databasePath, "__complete", "sections"])
        #expect(result?.status == 0 && result?.stdout == "" && result?.stderr == "")
    }

    /// A database another process holds an exclusive lock on: the answer is nothing, given while
    /// the lock is still held.
    @Test func aLockedDatabaseAnswersNothingWhileItIsLocked() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "Inbox"])
        let holder = try Connection(path: cli.databasePath, mode: .readWrite)
        try holder.execute(script: "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE lists SET name = name;")
        let result = try Self.complete(
            cli, ["--db", cli.databasePath, "__complete", "sections"], environment: ["SECTIONCTL_COMPLETE_SECONDS": "1"])
        #expect(result?.status == 0 && result?.stdout == "" && result?.stderr == "")
        try holder.execute(script: "ROLLBACK;")
    }

    @Test func neverAsksAServer() throws {
        let cli = try Sectionctl()
        // A port nothing listens on, and a host that is not resolved: no attempt either way.
        for location in ["postgresql://localhost:1/db", "postgres://no-such-host.invalid/db"] {
            let result = try Self.complete(cli, ["--db", location, "__complete", "sections"])
            #expect(result?.status == 0 && result?.stdout == "" && result?.stderr == "")
        }
    }
}
