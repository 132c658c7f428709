import CommandLineSupport
import Foundation
import Repository
import Transfer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `import FILE|-`: a native JSON document as written by `export` (`--replace`/`--append` for a
/// list that has sections), or with `--records` a JSON array of objects (`--nl`: one object per
/// line, streamed), each becoming a section of `--list`.
enum ImportCommand {
    static let replace = OptionSpec("--replace", help: "replace the content of a list that has sections")
    static let append = OptionSpec("--append", help: "add after the sections of a list that has some")
    static let records = OptionSpec("--records", help: "the input is a JSON array of objects, one section each")
    static let lines = OptionSpec("--nl", help: "with --records: one JSON object per line, streamed")
    static let template = OptionSpec("--template", valueName: "FILE", help: "with --records: labels, order and expected keys", completion: .files)
    static let titleKey = OptionSpec("--title-key", valueName: "KEY", help: "with --records: the key whose value titles each section")

    static let command = Command<Context>(
        CommandSpec(
            name: "import", summary: "import a list from JSON (as written by export), or records",
            arguments: [file],
            options: [replace, append, records, lines, template, titleKey],
            examples: [
                "import backup.json",
                "--list people import --records people.json --title-key name",
                "import --records --nl - < people.ndjson",
            ]),
        reading: ImportArguments.self,
        run: { try run($0, context: $1) })

    static let file = ArgumentSpec("FILE", help: "a file, or - for standard input", completion: .files)

    static func run(_ arguments: ImportArguments, context: Context) throws {
        let source = arguments.source
        let store = try context.openStore()
        switch arguments.format {
        case .records(let streamed, let templatePath, let titleKey):
            let template = try templatePath.map { path in
                try RecordTemplate(json: readInput(path, what: "template file"))
            }
            let options = RecordsImportOptions(list: context.listName, titleKey: titleKey, template: template)
            let change: Change
            if streamed {
                let input = try openInput(source)
                change = try context.withProgress(context.progressLine("import", totalBytes: Self.size(of: input))) { progress in
                    try store.importRecords(lines: input, options: options, progress: progress)
                }
            } else {
                let data = try readInput(source, what: "input file")
                change = try context.withProgress(context.progressLine("import")) { progress in
                    try store.importRecords(data, options: options, progress: progress)
                }
            }
            report(change, context: context)
        case .native(let policy):
            let input = try openInput(source)
            let changes = try context.withProgress(context.progressLine("import", totalBytes: Self.size(of: input))) { progress in
                try store.importJSON(from: input, list: context.options.listName, policy: policy, progress: progress)
            }
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

    /// All of a file, or of standard input for `-`, read as a stream: a pipe, a FIFO or
    /// `<(…)` reads as a file does. A missing file exits 66.
    static func readInput(_ path: String, what: String) throws -> Data {
        let handle = try openInput(path, what: what)
        var data = Data()
        do {
            // Read whole, but never past the limit: endless input (`- < /dev/zero`) is refused as
            // soon as it passes it, not after memory runs out.
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                data.append(chunk)
                guard data.count <= SectionStore.maximumDocumentLength else {
                    throw CLIError(
                        "the \(what) is longer than \(SectionStore.maximumDocumentLength) bytes, the most a document read whole may have;"
                            + " give records one per line with --nl, which streams", exitCode: .dataError)
                }
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot read \(path): \(error.localizedDescription)")
        }
        return data
    }

    /// The bytes left to read from `handle` when it is a regular file (standard input included,
    /// when redirected from one); `nil` for a pipe, a FIFO or a terminal.
    static func size(of handle: FileHandle) -> Int? {
        var status = stat()
        guard fstat(handle.fileDescriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let offset = lseek(handle.fileDescriptor, 0, SEEK_CUR)
        return Int(status.st_size) - max(0, Int(offset))
    }

    /// A file opened for reading a piece at a time, or standard input for `-`.
    static func openInput(_ path: String, what: String = "input file") throws -> FileHandle {
        if path == "-" { return FileHandle.standardInput }
        try checkExists(path, what: what)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIError("cannot open \(path) for reading: \(String(cString: strerror(errno)))")
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    private static func checkExists(_ path: String, what: String) throws(CLIError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError("no \(what) at \(path)", exitCode: .noInput)
        }
        if isDirectory.boolValue { throw CLIError("\(path) is a directory, not a file", exitCode: .noInput) }
    }
}

/// `import FILE [--replace | --append]`, or `import FILE --records [--nl] [--template FILE]
/// [--title-key KEY]`.
struct ImportArguments: CommandArguments {
    /// What the input is, with what goes with it.
    enum Format: Hashable, Sendable {
        /// A native document, and what to do with a list that has sections.
        case native(ImportConflictPolicy)
        /// Records: streamed one a line (`--nl`) or a JSON array, with the template file and
        /// the title key, if given.
        case records(streamed: Bool, template: String?, titleKey: String?)
    }

    /// The file, or `-` for standard input.
    var source: String
    var format: Format

    init(from line: ParsedLine) throws(CLIError) {
        let (replace, append, records) = (ImportCommand.replace, ImportCommand.append, ImportCommand.records)
        source = try line.word(ImportCommand.file)
        if line.has(replace) && line.has(append) {
            throw line.usage("use either \(replace.name) or \(append.name), not both")
        }
        guard line.has(records) else {
            for option in [ImportCommand.lines, ImportCommand.template, ImportCommand.titleKey] where line.has(option) {
                throw line.usage("\(option.name) goes with \(records.name)")
            }
            format = .native(line.has(replace) ? .replace : line.has(append) ? .append : .refuse)
            return
        }
        if line.has(replace) {
            throw line.usage("\(replace.name) does not go with \(records.name): records are always added after the list's sections")
        }
        format = .records(
            streamed: line.has(ImportCommand.lines), template: line.value(ImportCommand.template), titleKey: line.value(ImportCommand.titleKey))
    }
}

/// `export [-o FILE] [--all]`: the list (or every list) as native JSON, written as the rows are
/// read.
enum ExportCommand {
    static let output = OptionSpec("--output", short: "o", valueName: "FILE", help: "write to FILE instead of standard output", completion: .files)
    static let all = OptionSpec("--all", help: "every list, not only --list")

    static let command = Command<Context>(
        CommandSpec(
            name: "export", summary: "write the list (or all lists) as JSON",
            options: [output, all],
            examples: ["export -o backup.json", "export --all > everything.json"]),
        reading: ExportArguments.self,
        run: { try run($0, context: $1) })

    static func run(_ arguments: ExportArguments, context: Context) throws {
        let store = try context.openStore()
        let all = arguments.all
        let name = try context.listName(in: store)
        let line = context.progressLine("export", writesToOutput: arguments.output == nil)
        let export = { (write: (String) throws -> Void) throws in
            try context.withProgress(line) { progress in
                if all {
                    try store.exportAllJSON(progress: progress, to: write)
                } else {
                    try store.list(name).exportJSON(progress: progress, to: write)
                }
            }
        }
        guard let output = arguments.output else {
            let console = context.console
            try export { console.write($0) }
            return
        }
        let file = OutputFile(path: output)
        do {
            try export { try file.write($0) }
            try file.commit()
        } catch {
            file.abandon()
            throw error
        }
        let what = all ? "every list" : "list \"\(TextEscaping.escaped(name))\""
        if context.json {
            context.printJSON(
                .object([("output", .string(output)), ("list", all ? .null : .string(name))]))
        } else {
            context.console.writeLine("Wrote \(what) to \(TextEscaping.escaped(output)).")
        }
    }
}

/// `export [-o FILE] [--all]`.
struct ExportArguments: CommandArguments {
    /// `-o FILE`; standard output when `nil`.
    var output: String?
    /// `--all`: every list, not only `--list`.
    var all: Bool

    init(from line: ParsedLine) throws(CLIError) {
        output = line.value(ExportCommand.output)
        all = line.has(ExportCommand.all)
    }
}

/// Where `-o PATH` writes: through a symlink to its target; straight into anything that is not
/// a regular file (a FIFO, a device, `/dev/stdout`); and by atomic replace — a temporary file in
/// the same directory, renamed over the target — for a regular file or a new path, so that a
/// reader never sees half a file. Nothing is opened before the first write, so a command that
/// fails before writing leaves PATH as it was.
final class OutputFile {
    let path: String
    private var descriptor: Int32 = -1
    /// For an atomic replace: the temporary file and the path it is renamed to.
    private var temporary: String?
    private var target: String?
    private var mode: mode_t = 0o666

    init(path: String) {
        self.path = path
    }

    /// Appends `text`, opening the output first if needed.
    func write(_ text: String) throws {
        if descriptor < 0 { try open() }
        var text = text
        try text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure("cannot write \(path)")
                }
                offset += written
            }
        }
    }

    /// Finishes the output: syncs and renames the temporary file into place, or closes.
    func commit() throws {
        if descriptor < 0 { try open() }
        if let temporary, let target {
            guard fchmod(descriptor, mode) == 0, fsync(descriptor) == 0 else { throw failure("cannot write \(path)") }
            close(descriptor)
            descriptor = -1
            guard rename(temporary, target) == 0 else { throw failure("cannot replace \(path)") }
            self.temporary = nil
        } else {
            close(descriptor)
            descriptor = -1
        }
    }

    /// Closes and removes what was written to a temporary file; a direct output keeps what it got.
    func abandon() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        if let temporary { unlink(temporary) }
        temporary = nil
    }

    private func open() throws {
        var status = stat()
        if stat(path, &status) == 0 {
            let isRegular = (status.st_mode & S_IFMT) == S_IFREG
            let resolved = realpath(path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            }
            let isSpecial = [path, resolved ?? path].contains { $0.hasPrefix("/dev/") || $0.hasPrefix("/proc/") }
            if isRegular && !isSpecial, let resolved {
                mode = status.st_mode & 0o7777
                try openTemporary(replacing: resolved)
            } else {
                try openDirect()
            }
        } else if errno == ENOENT {
            var link = stat()
            if lstat(path, &link) == 0 {
                try openDirect()  // a symlink to nothing yet: create its target
            } else {
                let mask = umask(0)
                umask(mask)
                mode = 0o666 & ~mask
                try openTemporary(replacing: path)
            }
        } else {
            throw failure("cannot write \(path)")
        }
    }

    private func openDirect() throws {
        descriptor = systemOpen(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw failure("cannot write \(path)") }
    }

    private func openTemporary(replacing target: String) throws {
        let url = URL(fileURLWithPath: target)
        var template = Array((url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure("cannot write \(path)") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.target = target
    }

    private func failure(_ message: String) -> CLIError {
        CLIError("\(message): \(String(cString: strerror(errno)))")
    }
}
