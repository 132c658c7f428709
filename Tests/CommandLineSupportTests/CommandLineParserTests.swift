import Testing

@testable import CommandLineSupport

/// The generic parser, on a small made-up tool.
@Suite struct CommandLineParserTests {
    let parser = CommandLineParser(
        program: "tool",
        root: CommandSpec(
            name: "tool",
            subcommands: [
                CommandSpec(
                    name: "item",
                    subcommands: [
                        CommandSpec(
                            name: "add", arguments: [ArgumentSpec("NAME"), ArgumentSpec("NOTE", isOptional: true)],
                            options: [OptionSpec("--at", valueName: "I"), OptionSpec("--force")]),
                        CommandSpec(name: "move", arguments: [ArgumentSpec("FROM"), ArgumentSpec("TO")]),
                    ]),
                CommandSpec(name: "export", options: [OptionSpec("--output", short: "o", valueName: "FILE")]),
                CommandSpec(name: "echo", arguments: [ArgumentSpec("WORDS", isOptional: true, isVariadic: true)]),
            ]),
        globalOptions: [
            OptionSpec("--db", valueName: "PATH"), OptionSpec("--json"),
            OptionSpec("--help", short: "h", isHelp: true),
        ])

    @Test func choosesSubcommandsAndArguments() throws {
        let parsed = try parser.parse(["item", "add", "milk", "cold"])
        #expect(parsed.commandPath == ["item", "add"])
        #expect(parsed.arguments == ["milk", "cold"])
        #expect(parsed.options.isEmpty)
    }

    @Test func readsOptionValuesFromTheNextWordOrAfterEquals() throws {
        #expect(try parser.parse(["item", "add", "milk", "--at", "2"]).value("--at") == "2")
        #expect(try parser.parse(["item", "add", "--at=3", "milk"]).value("--at") == "3")
        #expect(try parser.parse(["item", "add", "--at=", "milk"]).value("--at") == "")
        #expect(try parser.parse(["item", "add", "milk", "--at=a=b"]).value("--at") == "a=b")
    }

    @Test func theLastOfARepeatedOptionWins() throws {
        let parsed = try parser.parse(["item", "add", "x", "--at", "1", "--at", "2"])
        #expect(parsed.value("--at") == "2")
        #expect(parsed.options["--at"] == ["1", "2"])
    }

    @Test func readsFlags() throws {
        let parsed = try parser.parse(["item", "add", "x", "--force"])
        #expect(parsed.has("--force"))
        #expect(!parsed.has("--at"))
    }

    @Test func readsShortOptionsSeparateOrAttached() throws {
        #expect(try parser.parse(["export", "-o", "out.json"]).value("--output") == "out.json")
        #expect(try parser.parse(["export", "-oout.json"]).value("--output") == "out.json")
    }

    @Test func acceptsGlobalOptionsAnywhere() throws {
        for words in [
            ["--db", "a.db", "--json", "item", "add", "x"],
            ["item", "--db", "a.db", "add", "x", "--json"],
            ["item", "add", "x", "--json", "--db=a.db"],
        ] {
            let parsed = try parser.parse(words)
            #expect(parsed.commandPath == ["item", "add"], "\(words)")
            #expect(parsed.value("--db") == "a.db", "\(words)")
            #expect(parsed.has("--json"), "\(words)")
            #expect(parsed.arguments == ["x"], "\(words)")
        }
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parser.parse(["item", "add", "--", "--force", "-x"])
        #expect(parsed.arguments == ["--force", "-x"])
        #expect(!parsed.has("--force"))
    }

    @Test func negativeLookingWordsAreArguments() throws {
        let parsed = try parser.parse(["item", "move", "-1", "-2"])
        #expect(parsed.arguments == ["-1", "-2"])
        #expect(try parser.parse(["item", "move", "0", "-0.5"]).arguments == ["0", "-0.5"])
    }

    @Test func anOptionTakesANegativeValue() throws {
        #expect(try parser.parse(["item", "add", "x", "--at", "-1"]).value("--at") == "-1")
        #expect(try parser.parse(["item", "add", "x", "--at", "--force"]).value("--at") == "--force")
    }

    @Test func aLoneDashIsAnArgument() throws {
        #expect(try parser.parse(["item", "add", "-"]).arguments == ["-"])
    }

    @Test func variadicArgumentsTakeTheRest() throws {
        #expect(try parser.parse(["echo", "a", "b", "c"]).arguments == ["a", "b", "c"])
        #expect(try parser.parse(["echo"]).arguments == [])
    }

    @Test func reportsUnknownCommandsWithTheChoices() {
        let error = #expect(throws: ArgumentError.self) { try parser.parse(["itme"]) }
        #expect(error?.message.contains("unknown command \"itme\"") == true)
        #expect(error?.message.contains("item, export, echo") == true)
        let sub = #expect(throws: ArgumentError.self) { try parser.parse(["item", "ad"]) }
        #expect(sub?.commandPath == ["item"])
        #expect(sub?.message.contains("add, move") == true)
    }

    @Test func reportsAMissingSubcommand() {
        let error = #expect(throws: ArgumentError.self) { try parser.parse(["item"]) }
        #expect(error?.message.contains("missing") == true)
    }

    @Test func reportsUnknownOptionsWithTheChoices() {
        let error = #expect(throws: ArgumentError.self) { try parser.parse(["item", "add", "x", "--frce"]) }
        #expect(error?.message.contains("unknown option --frce") == true)
        #expect(error?.message.contains("--force") == true)
        #expect(error?.commandPath == ["item", "add"])
        #expect(throws: ArgumentError.self) { try parser.parse(["item", "add", "x", "-z"]) }
        // An option of another command is unknown here.
        #expect(throws: ArgumentError.self) { try parser.parse(["item", "move", "a", "b", "--at", "1"]) }
    }

    @Test func reportsAMissingOptionValue() {
        let error = #expect(throws: ArgumentError.self) { try parser.parse(["item", "add", "x", "--at"]) }
        #expect(error?.message.contains("needs a value") == true)
        #expect(throws: ArgumentError.self) { try parser.parse(["export", "-o"]) }
    }

    @Test func reportsAValueGivenToAFlag() {
        let error = #expect(throws: ArgumentError.self) { try parser.parse(["item", "add", "x", "--force=yes"]) }
        #expect(error?.message.contains("takes no value") == true)
    }

    @Test func reportsMissingAndExtraArguments() {
        let missing = #expect(throws: ArgumentError.self) { try parser.parse(["item", "move", "a"]) }
        #expect(missing?.message == "missing argument TO")
        let extra = #expect(throws: ArgumentError.self) { try parser.parse(["item", "move", "a", "b", "c"]) }
        #expect(extra?.message == "unexpected argument \"c\"")
        #expect(throws: ArgumentError.self) { try parser.parse(["export", "file"]) }
    }

    @Test func helpNeedsNoArguments() throws {
        let parsed = try parser.parse(["item", "move", "--help"])
        #expect(parsed.commandPath == ["item", "move"])
        #expect(parsed.has("--help"))
        #expect(try parser.parse(["item", "-h"]).has("--help"))
    }

    @Test func helpPagesShowUsageOptionsAndExamples() {
        var withExample = parser
        withExample.root.subcommands[1].examples = ["export -o all.json"]
        let help = withExample.help(for: ["export"])
        #expect(help.hasPrefix("usage: tool export [-o FILE]\n"))
        #expect(help.contains("-o, --output FILE"))
        #expect(help.contains("--db PATH"))
        #expect(help.contains("  tool export -o all.json"))
        #expect(parser.usage(of: ["item", "add"]) == "tool item add NAME [NOTE] [--at I] [--force]")
        #expect(parser.usage(of: []) == "tool [--db PATH] [--json] COMMAND [ARGS]")
        #expect(parser.usage(of: ["item"]) == "tool item COMMAND")
    }

    @Test func anOptionTakesADoubleDashAsItsValueWithoutEndingOptions() throws {
        let parsed = try parser.parse(["item", "add", "--at", "--", "milk", "--force"])
        #expect(parsed.value("--at") == "--")
        #expect(parsed.has("--force"))
        #expect(parsed.arguments == ["milk"])
        #expect(try parser.parse(["echo", "--", "--at", "-1", "--"]).arguments == ["--at", "-1", "--"])
    }

    @Test func tokensSayWhatEachWordLooksLike() {
        #expect(
            CommandLineParser.tokenise(["--at=2", "--force", "-oout", "-1", "--", "x"]) == [
                .long(name: "--at", inlineValue: "2", word: "--at=2"),
                .long(name: "--force", inlineValue: nil, word: "--force"),
                .short(letter: "o", rest: "out", word: "-oout"),
                .short(letter: "1", rest: "", word: "-1"),
                .endOfOptions,
                .plain("x"),
            ])
    }
}
