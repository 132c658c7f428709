import CommandLineSupport
import Repository

/// Part of a list, as an edit session shows it at a terminal after each change: the rows
/// around the places that changed, under their section headers, with `…` where rows are left
/// out and, in an editing view, the footers of empty sections. The lines look like `Listing`'s:
///
/// ```
/// default (editing version 5, 1 change not saved)
///
/// [0] To do  #1
///   0:0  Buy milk  #3
///   0:1  Write report  #5
///
/// [1] Done  #2
///   1:0  Call Mom  #4
///   …
/// ```
struct Excerpt {
    /// Colours, or none.
    var style: Style
    /// The sections shown, by index, with their row counts.
    private var sections: [Int: SectionInfo] = [:]
    /// The rows shown, by section index and row index.
    private var rows: [Int: [Int: Row]] = [:]
    private var isEditing = false

    init(style: Style) {
        self.style = style
    }

    /// Adds a window's sections and rows to what is shown.
    mutating func add(_ window: ListWindow) {
        isEditing = window.isEditing
        for part in window.parts {
            sections[part.section.index] = part.section
            for (offset, row) in part.rows.enumerated() {
                rows[part.section.index, default: [:]][part.firstRow + offset] = row
            }
        }
    }

    /// Adds a section's header (and footer), with none of its rows.
    mutating func add(_ section: SectionInfo, editing: Bool) {
        isEditing = editing
        sections[section.index] = section
    }

    /// The excerpt, ending with a line break.
    func render(header: String) -> String {
        var lines = [header]
        let pathWidth =
            rows.map { section, shown in "\(section):\(shown.keys.max() ?? 0)".count }.max().map { max($0, 3) } ?? 3
        for index in sections.keys.sorted() {
            let section = sections[index]!
            lines.append("")
            lines.append(style.cyan("[\(index)]") + " " + style.bold(TextEscaping.escaped(section.title)) + id(section.id))
            if let footer = section.footer(editing: isEditing) {
                lines.append(
                    "  " + String(repeating: " ", count: pathWidth) + "  " + style.italic(style.dim("(" + TextEscaping.escaped(footer) + ")")))
                continue
            }
            let shown = rows[index] ?? [:]
            let labelColumn = RowLine.labelColumn(shown.values)
            var next = 0
            for rowIndex in shown.keys.sorted() {
                if rowIndex > next { lines.append("  " + style.dim("…")) }
                lines.append(
                    RowLine(style: style).line(
                        shown[rowIndex]!, path: RowPath(section: index, row: rowIndex), pathWidth: pathWidth, labelColumn: labelColumn))
                next = rowIndex + 1
            }
            if next < section.rowCount { lines.append("  " + style.dim("…")) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func id(_ id: SectionID) -> String {
        "  " + style.dim("#\(id)")
    }
}
