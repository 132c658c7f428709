import CommandLineSupport
import Repository

/// `check`: verifies everything sectionctl relies on and does not keep by itself. Exits 1 when
/// anything disagrees, naming each problem on a line of its own and then what to do.
enum CheckCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "check", summary: "verify counts, order, the rank structure, the journal, undo and the schema",
            examples: ["check", "--json check"],
            discussion: """
                Reads the whole database: each section's row count; the rank structure (which makes index
                lookups O(log n)) against the rows in its range; positions in range; nothing left
                belonging to a row, section or list that is gone; the journal and the undo history
                against their lists' versions; and, in a file, SQLite's quick_check, journal_writer, and
                every table, column, index, trigger and view against the schema. Prints ok, or each
                problem (kind: what was found) and a line saying what to do, and exits 1.
                """),
        run: { try run(context: $0) })

    static func run(context: Context) throws {
        let store = try context.openStore()
        let problems = try store.check()
        if context.json {
            context.printJSON(JSONShapes.check(problems, database: store.path))
        } else if problems.isEmpty {
            context.console.writeLine("ok: row counts, order, the rank structure, the journal and undo history agree with the rows")
        }
        guard !problems.isEmpty else { return }
        if !context.json {
            for problem in problems { context.console.writeLine(TextEscaping.escaped(problem.description)) }
            context.console.writeLine(advice(problems, context: context))
        }
        throw CLIError("the database disagrees with itself in \(problems.count) place\(problems.count == 1 ? "" : "s")")
    }

    /// What to do about `problems`: `repair` when it mends them all; else, since it refuses
    /// what it cannot mend, a copy into a new database.
    static func advice(_ problems: [IntegrityProblem], context: Context) -> String {
        let database = context.options.databasePath.map { " --db " + ShellWords.quote(Context.shown(StoreLocation($0))) } ?? ""
        let refused = problems.filter { !$0.isRepairable }
        guard !refused.isEmpty else {
            return "to mend \(problems.count == 1 ? "it" : "them"), keeping ids, titles and order: sectionctl\(database) repair"
        }
        let kinds = Array(Set(refused.map(\.kind.rawValue))).sorted().joined(separator: ", ")
        return "sectionctl repair cannot mend the \(kinds) \(refused.count == 1 ? "problem" : "problems"): "
            + RepairCommand.copyAdvice(database: database)
    }
}

/// `repair`: mends what `check` finds, in one transaction, and says what it changed.
enum RepairCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "repair", summary: "mend what check finds, keeping ids, titles and order",
            examples: ["repair", "--json repair"],
            discussion: """
                In one transaction: recounts row counts, rebuilds the rank structure of each damaged
                section, clears stale rank_pending notes, deletes what belongs to a row, section or
                list that is gone, gives evenly spaced positions (in their order) to the items of a
                section or list with any position out of range, drops journal entries past their
                list's version, drops undo history it cannot trust, and, in a file, puts journal_writer
                back and makes missing or altered triggers, views and indexes again. Prints each thing
                it changed; every list it changed gets a new version journaled as a reload, so that
                watch and changes --since reload. Then check passes. A database check finds nothing
                wrong with is not written. Refused, writing nothing, when a problem is not one it can
                mend safely (SQLite's quick_check fails, a table is missing or changed): copy what
                still reads into a new database instead. The whole database is repaired; --list is
                refused.
                """),
        run: { try run(context: $0) })

    static func run(context: Context) throws {
        guard context.options.listName == nil else {
            throw CLIError.usage(
                "repair mends the whole database, as check reads it; give no \(Catalog.list.name)", command: ["repair"])
        }
        let store = try context.openStore()
        let report = try store.repair()
        if context.json {
            context.printJSON(JSONShapes.repair(report, database: store.path))
            return
        }
        guard !report.isEmpty else {
            context.console.writeLine("nothing to repair: check finds nothing wrong, and nothing was written")
            return
        }
        for action in report.actions { context.console.writeLine(TextEscaping.escaped(action.description)) }
        let changes = report.actions.count == 1 ? "1 change" : "\(report.actions.count) changes"
        let lists = report.reloadedLists.map {
            "list \"\(TextEscaping.escaped($0.name))\" is at version \($0.version)"
        }
        context.console.writeLine(
            "Repaired: \(changes); "
                + (lists.isEmpty
                    ? "no list's content changed."
                    : lists.joined(separator: ", ") + ", journaled as a reload (views and changes --since read it afresh)."))
    }

    /// How to copy the lists of a database that repair cannot mend into a new one.
    static func copyAdvice(database: String) -> String {
        "restore a backup, or copy what still reads into a new database: sectionctl --db NEW.db init, then "
            + "sectionctl\(database) export --all | sectionctl --db NEW.db import - (ids and history start afresh there)"
    }
}

/// `vacuum`: compacts a database file and sets it to give free pages back by itself.
enum VacuumCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "vacuum", summary: "compact the database file, giving free pages back",
            examples: ["vacuum", "--json vacuum"],
            discussion: """
                A file created by this version gives free pages back by itself: after a write that
                leaves at least 4 MiB and an eighth of the file free (a large delete, the undo of an
                import), the file shrinks by them. vacuum rewrites the whole file compactly (SQLite's
                VACUUM), truncates its write-ahead log, and sets a file made by an older version to
                give pages back the same way from then on. It copies every page once and needs no
                other process to be writing (exit 75 while one holds a transaction open: try again).
                Prints the file's size before and after. On a server there is nothing to do:
                PostgreSQL's autovacuum reclaims space by itself. The whole database; --list is
                refused.
                """),
        run: { try run(context: $0) })

    static func run(context: Context) throws {
        guard context.options.listName == nil else {
            throw CLIError.usage(
                "vacuum compacts the whole database; give no \(Catalog.list.name)", command: ["vacuum"])
        }
        let store = try context.openStore()
        let report = try store.vacuum()
        if context.json {
            context.printJSON(JSONShapes.vacuum(report, database: store.path))
            return
        }
        guard let report else {
            context.console.writeLine("nothing to vacuum on a server: PostgreSQL's autovacuum reclaims space by itself")
            return
        }
        context.console.writeLine(
            "Vacuumed \(TextEscaping.escaped(store.path)): \(bytes(report.bytesBefore)) → \(bytes(report.bytesAfter))"
                + " (\(report.freePagesBefore) free page\(report.freePagesBefore == 1 ? "" : "s") given back);"
                + " free pages are given back after large deletes from now on.")
    }

    /// A size as people read it: bytes, KiB, MiB or GiB, one decimal past bytes.
    static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard count >= 1024 else { return "\(count) bytes" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
