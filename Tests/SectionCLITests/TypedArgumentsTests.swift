import Repository
import TestSupport
import Testing

@testable import SectionCLI

/// Reads a command line the way `sectionctl` does before a command runs: parsed by the catalog's
/// parser, then read into the command's typed arguments.
private func decode<Arguments: CommandArguments>(_ words: [String], as _: Arguments.Type) throws -> Arguments {
    let parsed = try Catalog.parser.parse(words)
    let spec = try #require(Catalog.parser.command(at: parsed.commandPath))
    return try Arguments(from: ParsedLine(parsed, spec: spec))
}

/// The usage error reading `words` into `Arguments` throws.
private func decodeFailure<Arguments: CommandArguments>(
    _ words: [String], as type: Arguments.Type, sourceLocation: SourceLocation = #_sourceLocation
) throws -> CLIError {
    do {
        _ = try decode(words, as: type)
    } catch let error as CLIError {
        return error
    }
    Issue.record("\(words) was read without an error", sourceLocation: sourceLocation)
    return CLIError("")
}

/// Each command's line read into typed values: addresses with the words they came from, numbers,
/// flags, and the edit they ask for.
@Suite struct TypedArgumentsTests {
    @Test func rowMoveReadsItsSourceAndDestinationAsWritten() throws {
        let arguments = try decode(["row", "move", "0:007", "Done:end"], as: RowMoveArguments.self)
        #expect(arguments.source.literal == "0:007")
        guard case .path(let section, let index) = arguments.source.form else {
            Issue.record("not a path: \(arguments.source.form)")
            return
        }
        #expect(section.literal == "0" && section.reference == .index(0))
        #expect(index.literal == "007" && index.index == .index(7))
        #expect(arguments.destination == .place(try DestinationAddress("Done:end")))
        #expect(arguments.edit == .moveRow(.at(0, 7), to: RowDestination(section: .title("Done"), index: .end)))
        #expect(
            arguments.places == [
                .sectionIndex(0, literal: "0"), .rowIndex(.index(7), section: .index(0), literal: "007"),
                .rowIndex(.end, section: .title("Done"), literal: "end"),
            ])
    }

    @Test func rowMoveNextToARowKeepsTheIdAsWritten() throws {
        let arguments = try decode(["row", "move", "#3", "--before=#012"], as: RowMoveArguments.self)
        #expect(arguments.source.form == .id(3))
        #expect(arguments.destination == .anchor(.before(12), literal: "#012"))
        var destination = RowDestination.before(12)
        destination.anchor = .before(12)
        #expect(arguments.edit == .moveRow(.id(3), to: destination))
        #expect(arguments.places == [.rowID(3, literal: "#3"), .rowID(12, literal: "#012")])
    }

    @Test func sectionAddReadsItsIndexOption() throws {
        let arguments = try decode(["section", "add", "Urgent", "--at", "01", "--empty-text", "Nothing"], as: SectionAddArguments.self)
        #expect(arguments.title == "Urgent")
        #expect(arguments.index == (try SectionIndexAddress("01")))
        #expect(arguments.index?.index == 1)
        #expect(arguments.edit == .addSection(title: "Urgent", emptyText: "Nothing", at: 1))
        #expect(arguments.places == [.sectionIndex(1, literal: "01")])
        #expect(try decode(["section", "add", "Later"], as: SectionAddArguments.self).edit == .addSection(title: "Later"))
    }

    @Test func rowAddReadsKindValueAndPlace() throws {
        let field = try decode(["row", "add", "Profile", "Name", "--value", "Ada", "--at", "end"], as: RowAddArguments.self)
        #expect(field.content == RowContent(kind: .field, title: "Name", value: "Ada"))
        #expect(field.edit == .addRow(field.content, to: RowDestination(section: .title("Profile"), index: .end)))
        let topic = try decode(["row", "add", "02", "Contact", "--kind", "topic", "--at", "0"], as: RowAddArguments.self)
        #expect(topic.content == RowContent(kind: .topic, title: "Contact", value: nil))
        #expect(topic.places == [.sectionIndex(2, literal: "02"), .rowIndex(.index(0), section: .index(2), literal: "0")])
    }

    @Test func sectionSetAndRowSetReadWhatTheyChange() throws {
        #expect(try decode(["section", "set", "Done", "--no-empty-text"], as: SectionSetArguments.self).edit == .setEmptyText(.title("Done"), nil))
        let row = try decode(["row", "set", "0:1", "--title", "Oat milk", "--no-value"], as: RowSetArguments.self)
        #expect(row.edit == .updateRow(.at(0, 1), title: "Oat milk", value: .remove))
    }

    @Test func showReadsAWindowOnlyWhenOneIsAskedFor() throws {
        #expect(try decode(["show", "--editing"], as: ShowArguments.self).window == nil)
        let window = try decode(["show", "--from", "2:4"], as: ShowArguments.self).window
        #expect(window?.start?.reference == .at(2, 4))
        #expect(window?.limit == ShowCommand.defaultLimit)
        let limited = try decode(["show", "--limit", "3"], as: ShowArguments.self).window
        #expect(limited?.start == nil && limited?.limit == 3)
    }

    @Test func importReadsItsFormat() throws {
        #expect(try decode(["import", "a.json", "--append"], as: ImportArguments.self).format == .native(.append))
        let records = try decode(["import", "-", "--records", "--nl", "--title-key", "name"], as: ImportArguments.self)
        #expect(records.source == "-")
        #expect(records.format == .records(streamed: true, template: nil, titleKey: "name"))
    }

    @Test func listsChangesAndHelpReadTheirWords() throws {
        let rename = try decode(["list", "rename", "work", "job"], as: ListRenameArguments.self)
        #expect(rename.name == "work" && rename.newName == "job")
        #expect(try decode(["list", "delete", "work", "--force"], as: ListDeleteArguments.self).force)
        #expect(try decode(["changes", "--since", "12"], as: ChangesArguments.self).since == 12)
        #expect(try decode(["help", "row", "move"], as: HelpArguments.self).page == .command(["row", "move"]))
        #expect(try decode(["help", "--man"], as: HelpArguments.self).page == .manual)
    }

    /// A word an argument or option cannot take is a usage error of the command, worded as the
    /// command line reports it, with the hint to its help.
    @Test func aMalformedWordIsAUsageErrorOfItsCommand() throws {
        let cases: [(CLIError, String, String)] = [
            (
                try decodeFailure(["row", "delete", "0"], as: RowDeleteArguments.self),
                "\"0\" is not a row address (use S:R, S:end or #ID)", "row delete"
            ),
            (
                try decodeFailure(["row", "move", "0:0", "1"], as: RowMoveArguments.self),
                "\"1\" is not a destination address (use S:R, S:end)", "row move"
            ),
            (
                try decodeFailure(["row", "add", "0", "x", "--at", "last"], as: RowAddArguments.self),
                "a row index is a number or 'end', not \"last\"", "row add"
            ),
            (
                try decodeFailure(["section", "move", "0", "first"], as: SectionMoveArguments.self),
                "a section index is a number, not \"first\"", "section move"
            ),
            (
                try decodeFailure(["show", "--limit", "-1"], as: ShowArguments.self),
                "--limit takes a number of rows, 0 or more, not \"-1\"", "show"
            ),
            (
                try decodeFailure(["changes", "--since", "v2"], as: ChangesArguments.self),
                "--since takes a version, a whole number 0 or more, not \"v2\"", "changes"
            ),
            (try decodeFailure(["help", "nothing"], as: HelpArguments.self), "no command \"nothing\"", "help"),
        ]
        for (error, message, command) in cases {
            #expect(error.message == message)
            #expect(error.exitCode == .usage)
            #expect(error.hint == "see 'sectionctl \(command) --help'")
        }
    }
}

/// A store error about a place the command line named is worded with the place as written.
@Suite struct WrittenPlaceTests {
    @Test func aRowIndexErrorQuotesTheIndexOfThatSection() throws {
        let places = try RowMoveArguments.places(of: ["row", "move", "0:07", "1:7"])
        let source = CLIError.about(.rowIndexOutOfRange(7, section: 0, valid: 0...2), writtenAs: places)
        #expect(source?.message == "row index 07 is out of range for section 0 (valid: 0…2)")
        #expect(source?.exitCode == .failure)
        let destination = CLIError.about(.rowIndexOutOfRange(7, section: 1, valid: nil), writtenAs: places)
        #expect(destination?.message == "row index 7 is out of range: section 1 has no rows")
        #expect(CLIError.about(.rowIndexOutOfRange(5, section: 0, valid: 0...2), writtenAs: places) == nil)
    }

    @Test func aSectionNamedByTitleMayBeAnyIndex() throws {
        let places = try RowMoveArguments.places(of: ["row", "move", "Done:0003", "0:0"])
        let error = CLIError.about(.rowIndexOutOfRange(3, section: 4, valid: 0...1), writtenAs: places)
        #expect(error?.message == "row index 0003 is out of range for section 4 (valid: 0…1)")
    }

    @Test func endInAnEmptySectionKeepsTheStoresWords() throws {
        let places = try RowMoveArguments.places(of: ["row", "move", "1:end", "1:-1"])
        #expect(CLIError.about(.rowIndexOutOfRange(-1, section: 1, valid: nil), writtenAs: places) == nil)
    }

    @Test func sectionIndexesAndIdsAreQuotedAsWritten() throws {
        let move = try decode(["section", "move", "000", "-01"], as: SectionMoveArguments.self).places
        #expect(
            CLIError.about(.sectionIndexOutOfRange(-1, valid: 0...1), writtenAs: move)?.message
                == "section index -01 is out of range (valid: 0…1)")
        #expect(
            CLIError.about(.sectionIndexOutOfRange(0, valid: nil), writtenAs: move)?.message
                == "section index 000 is out of range: the list has no sections")
        let rename = try decode(["section", "rename", "#09", "x"], as: SectionRenameArguments.self).places
        #expect(
            CLIError.about(.sectionNotFound(.id(9), list: "default", titles: ["A"]), writtenAs: rename)?.message
                == "no section #09 in list \"default\" (sections: \"A\")")
        let delete = try decode(["row", "delete", "#0042"], as: RowDeleteArguments.self).places
        #expect(CLIError.about(.rowNotFound(42, list: "work"), writtenAs: delete)?.message == "no row #0042 in list \"work\"")
        #expect(CLIError.about(.rowNotFound(41, list: "work"), writtenAs: delete) == nil)
        #expect(CLIError.about(.listExists("work"), writtenAs: delete) == nil)
    }
}

extension RowMoveArguments {
    fileprivate static func places(of words: [String]) throws -> [WrittenPlace] {
        try decode(words, as: RowMoveArguments.self).places
    }
}

/// End to end: what the binary prints for a place written in a form the parser accepts but the
/// store does not keep (leading zeros, a negative zero-padded number, a zero-padded id).
@Suite struct LiteralEchoTests {
    @Test(arguments: Backend.all) func aRowIndexOutOfRangeIsEchoedAsWritten(backend: Backend) throws {
        let cli = try Sectionctl(backend)
        try cli.seed()
        let cases: [([String], String)] = [
            (["row", "move", "0:007", "1:0"], "row index 007 is out of range for section 0 (valid: 0…2)"),
            (["row", "move", "0:0", "1:01"], "row index 01 is out of range for section 1 (valid: 0)"),
            (["row", "move", "To do:-01", "1:0"], "row index -01 is out of range for section 0 (valid: 0…2)"),
            (["row", "add", "0", "x", "--at", "0004"], "row index 0004 is out of range for section 0 (valid: 0…3)"),
            (["row", "get", "0:003"], "row index 003 is out of range for section 0 (valid: 0…2) in version 5 of the list"),
            (["show", "--from", "0:04"], "row index 04 is out of range for section 0 (valid: 0…3) in version 5 of the list"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "sectionctl: error: \(message)\n", "\(arguments)")
        }
        let session = try cli.run(["edit"], input: "row add 1 x\nrow move 0:010 1:0\nsave\n")
        #expect(session.status == 1)
        #expect(session.stderr == "sectionctl: error: line 2: row index 010 is out of range for section 0 (valid: 0…2)\n")
        #expect(try cli.snapshot()["version"] as? Int == 5, "nothing was written")
    }

    @Test(arguments: Backend.all) func aSectionIndexOrIdOutOfRangeIsEchoedAsWritten(backend: Backend) throws {
        let cli = try Sectionctl(backend)
        try cli.seed()
        let cases: [([String], String)] = [
            (["row", "add", "005", "x"], "section index 005 is out of range (valid: 0…1)"),
            (["row", "move", "0:0", "02:0"], "section index 02 is out of range (valid: 0…1)"),
            (["section", "move", "0", "07"], "section index 07 is out of range (valid: 0…1)"),
            (["section", "add", "x", "--at", "003"], "section index 003 is out of range (valid: 0…2)"),
            (["section", "delete", "#007"], "no section #007 in list \"default\" (sections: \"To do\", \"Done\")"),
            (["row", "delete", "#0099"], "no row #0099 in list \"default\""),
            (["row", "move", "0:0", "--after", "#099"], "no row #099 in list \"default\""),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "sectionctl: error: \(message)\n", "\(arguments)")
        }
        let session = try cli.run(["edit"], input: "section move 1 0010\nsave\n")
        #expect(session.stderr == "sectionctl: error: line 1: section index 0010 is out of range (valid: 0…1)\n")
        #expect(try cli.snapshot()["version"] as? Int == 5, "nothing was written")
    }

    /// Each kind of typed argument, given a word it cannot take: one line naming it and what would
    /// be right, the hint to the command's help, exit 2, nothing written.
    @Test(
        arguments: [
            (["row", "delete", "0"], "\"0\" is not a row address (use S:R, S:end or #ID)", "row delete"),
            (["row", "move", "0:0", "1"], "\"1\" is not a destination address (use S:R, S:end)", "row move"),
            (["row", "move", "0:0", "#2"], "a destination is S:R or S:end, not a row id (#2)", "row move"),
            (["row", "add", "0", "x", "--at", "x"], "a row index is a number or 'end', not \"x\"", "row add"),
            (["section", "add", "x", "--at", "first"], "a section index is a number, not \"first\"", "section add"),
            (["row", "add", "0", "x", "--kind", "heading"], "unknown kind \"heading\" (kinds: text, topic, field)", "row add"),
            (
                ["row", "move", "0:0", "--after", "1:0"],
                "--after takes a row's #ID, a place that does not shift; for an index path give TO instead", "row move"
            ),
            (["show", "--from", "0"], "\"0\" is not a row address (use S:R, S:end or #ID)", "show"),
            (["show", "--limit", "ten"], "--limit takes a number of rows, 0 or more, not \"ten\"", "show"),
            (["changes", "--since", "-1"], "--since takes a version, a whole number 0 or more, not \"-1\"", "changes"),
            (["completion", "tcsh"], "no completion for \"tcsh\" (shells: bash, zsh, fish)", "completion"),
            (["help", "row", "nothing"], "no command \"row nothing\"", "help"),
        ] as [([String], String, String)])
    func aWordAnArgumentCannotTakeIsAUsageError(arguments: [String], message: String, command: String) throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "sectionctl: error: \(message)\nhint: see 'sectionctl \(command) --help'\n")
        #expect(try cli.snapshot()["version"] as? Int == 5, "nothing was written")
    }
}
