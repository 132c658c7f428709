import CommandLineSupport
import Repository

/// `row get PATH`: one row with its index path and its section.
enum RowGetCommand {
    static func run(_ arguments: RowGetArguments, context: Context) throws {
        let list = try context.openList()
        try arguments.row.places.naming {
            let window = try list.window(startingAt: arguments.row.reference, limit: 1)
            try print(window, context: context, readAt: window.version)
        }
    }

    /// Prints the first row of a one-row window (from the store, or an edit session's draft).
    /// - Throws: `RepositoryError.rowIndexOutOfRange` when the window starts past the last row of
    ///   its section, as the store's own errors about the path are thrown: naming `version`, the
    ///   version of the list the store read (`nil` for a draft).
    static func print(_ window: ListWindow, context: Context, readAt version: ListVersion? = nil) throws {
        // A window may start at a section's end; a row must exist.
        guard let part = window.parts.first, let row = part.rows.first else {
            let section = window.parts.first?.section
            let count = section?.rowCount ?? 0
            throw RepositoryError.rowIndexOutOfRange(
                window.parts.first?.firstRow ?? 0, section: section?.index ?? 0, valid: count > 0 ? 0...(count - 1) : nil,
                version: version)
        }
        let path = RowPath(section: part.section.index, row: part.firstRow)
        if context.json {
            context.printJSON(JSONShapes.located(row, path: path, section: part.section, in: window))
            return
        }
        context.console.write(WindowListing(style: context.style).render(window, header: false))
    }
}

/// A window of a list as text: each section it touches with its row count, then its rows in the
/// window with their paths (field values aligned within the section), then, in an editing view,
/// the footer of an empty section.
struct WindowListing {
    var style: Style

    func render(_ window: ListWindow, header: Bool = true) -> String {
        var lines: [String] = []
        if header {
            let state = window.isEditing ? ", editing" : ""
            let last = window.located.last.map { " to \($0.path)" } ?? ""
            let first = window.located.first.map { "rows \($0.path)" } ?? "no rows"
            lines.append(style.bold(TextEscaping.escaped(window.name)) + " (version \(window.version)\(state); \(first)\(last))")
        }
        let pathWidth = window.parts.map { "\($0.section.index):\($0.firstRow + max($0.rows.count - 1, 0))".count }.max() ?? 3
        for part in window.parts {
            if header || part.section.index != window.parts.first?.section.index { lines.append("") }
            let count = part.section.rowCount == 1 ? "1 row" : "\(part.section.rowCount) rows"
            lines.append(
                style.cyan("[\(part.section.index)]") + " " + style.bold(TextEscaping.escaped(part.section.title)) + "  "
                    + style.dim("#\(part.section.id)") + "  " + style.dim("(\(count))"))
            if let footer = part.section.footer(editing: window.isEditing) {
                lines.append(
                    "  " + String(repeating: " ", count: pathWidth) + "  " + style.italic(style.dim("(" + TextEscaping.escaped(footer) + ")")))
            }
            let labelColumn = RowLine.labelColumn(part.rows)
            for (offset, row) in part.rows.enumerated() {
                lines.append(
                    RowLine(style: style).line(
                        row, path: RowPath(section: part.section.index, row: part.firstRow + offset), pathWidth: pathWidth,
                        labelColumn: labelColumn))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
