import Foundation
import Repository

/// `import FILE|-`: a native JSON document as written by `export` (`--replace`/`--append` for a
/// list that has sections), or with `--records` a JSON array of objects (`--nl`: one object per
/// line, streamed), each becoming a section of `--list`.
enum ImportCommand {
    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let usage = { (message: String) in CLIError.usage(message, command: parsed.commandPath) }
        let source = parsed.arguments[0]
        let records = parsed.has("--records")
        if parsed.has("--replace") && parsed.has("--append") {
            throw usage("use either --replace or --append, not both")
        }
        if !records {
            for option in ["--nl", "--template", "--title-key"] where parsed.has(option) {
                throw usage("\(option) goes with --records")
            }
        } else if parsed.has("--replace") {
            throw usage("--replace does not go with --records: records are always added after the list's sections")
        }

        let store = try context.openStore()
        if records {
            let template = try parsed.value("--template").map { path in
                try RecordTemplate(json: readInput(path, what: "template file"))
            }
            let options = RecordsImportOptions(list: context.listName, titleKey: parsed.value("--title-key"), template: template)
            let change: Change
            if parsed.has("--nl") {
                change = try store.importRecords(lines: try openInput(source), options: options)
            } else {
                change = try store.importRecords(try readInput(source, what: "input file"), options: options)
            }
            report(change, context: context)
        } else {
            let policy: ImportConflictPolicy = parsed.has("--replace") ? .replace : parsed.has("--append") ? .append : .refuse
            let changes = try store.importJSON(
                try readInput(source, what: "input file"), list: context.options.listName, policy: policy)
            for change in changes { report(change, context: context) }
        }
    }

    /// The change as JSON, or a sentence that says when the list was created.
    private static func report(_ change: Change, context: Context) {
        guard !context.json, let listID = change.createdID else { return context.report(change) }
        var sentence = change
        sentence.createdID = nil
        context.console.writeLine(
            "Created list \"\(TextEscaping.escaped(change.list))\" (#\(listID)). " + ChangeReport.sentence(for: sentence))
    }

    /// All of a file, or of standard input for `-`. A missing file exits 66.
    static func readInput(_ path: String, what: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        try checkExists(path, what: what)
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// A file opened for reading a piece at a time, or standard input for `-`.
    static func openInput(_ path: String) throws -> FileHandle {
        if path == "-" { return FileHandle.standardInput }
        try checkExists(path, what: "input file")
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError("cannot open \(path) for reading")
        }
        return handle
    }

    private static func checkExists(_ path: String, what: String) throws(CLIError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError("no \(what) at \(path)", exitCode: .noInput)
        }
        if isDirectory.boolValue { throw CLIError("\(path) is a directory, not a file", exitCode: .noInput) }
    }
}

/// `export [-o FILE] [--all]`: the list (or every list) as native JSON.
enum ExportCommand {
    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let store = try context.openStore()
        let all = parsed.has("--all")
        let text = all ? try store.exportAllJSON() : try store.exportJSON(list: context.listName)
        guard let output = parsed.value("--output") else {
            context.console.write(text)
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CLIError("cannot write \(output): \(error.localizedDescription)")
        }
        let what = all ? "every list" : "list \"\(TextEscaping.escaped(context.listName))\""
        if context.json {
            context.printJSON(
                .object([("output", .string(output)), ("list", all ? .null : .string(context.listName))]))
        } else {
            context.console.writeLine("Wrote \(what) to \(TextEscaping.escaped(output)).")
        }
    }
}
