import Repository

/// The readable listing of a list, as `show` prints it and an edit session redraws it:
///
/// ```
/// default (version 4, editing)
///
/// [0] To do  #1
///   0:0  Buy milk  #3
///
/// [1] Done  #2
///        (No Data)
///
/// [2] プロフィール  #4
///   2:0  # 基本情報  #5
///   2:1  名前  山田 太郎  #6
///   2:2  年齢  -  #7
/// ```
///
/// Each section header shows its index and id; each row its `S:R` path (what the row commands
/// take), its content and its id. Topic rows are headings (`# `, bold in colour). Field rows
/// show label and value in two columns aligned
/// by display width across the section; an absent value is `-`. In an editing view an empty
/// section shows its footer in parentheses: it has no path, it is not a row. All user text is
/// escaped (`TextEscaping`) before it is measured and printed.
struct Listing {
    /// Colours, or none.
    var style: Style

    /// The whole listing, ending with a line break.
    func render(_ snapshot: ListSnapshot, header: String? = nil) -> String {
        var lines: [String] = []
        let state = snapshot.isEditing ? ", editing" : ""
        lines.append(header ?? style.bold(TextEscaping.escaped(snapshot.name)) + " (version \(snapshot.version)\(state))")
        if snapshot.sections.isEmpty {
            lines.append("")
            lines.append(style.dim("(no sections yet; add one with: section add TITLE)"))
        }
        // Paths take at least "0:0"'s width, so that footers line up however many rows there are.
        let pathWidth = snapshot.sections.enumerated().map { index, section in
            section.rows.isEmpty ? 3 : "\(index):\(section.rows.count - 1)".count
        }.max() ?? 3
        for (index, section) in snapshot.sections.enumerated() {
            lines.append("")
            lines += render(section, at: index, pathWidth: pathWidth, editing: snapshot.isEditing)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func render(_ section: Section, at index: Int, pathWidth: Int, editing: Bool) -> [String] {
        var lines = [style.cyan("[\(index)]") + " " + style.bold(TextEscaping.escaped(section.title)) + id(section.id)]
        let margin = "  "
        let gap = "  "
        if let footer = section.footer(editing: editing) {
            let indent = margin + String(repeating: " ", count: pathWidth) + gap
            lines.append(indent + style.italic(style.dim("(" + TextEscaping.escaped(footer) + ")")))
            return lines
        }
        // Field values start in one column across the section.
        let labelColumn = section.rows.filter { $0.kind == .field }
            .map { DisplayWidth.of(TextEscaping.escaped($0.title)) }.max() ?? 0
        for (rowIndex, row) in section.rows.enumerated() {
            let path = DisplayWidth.padded("\(index):\(rowIndex)", to: pathWidth)
            let title = TextEscaping.escaped(row.title)
            let content: String
            switch row.kind {
            case .text:
                content = title
            case .topic:
                content = style.bold("# " + title)
            case .field:
                let label = DisplayWidth.padded(title, to: labelColumn)
                let value = row.value.map(TextEscaping.escaped)
                content = style.yellow(label) + gap + (value ?? style.dim("-"))
            }
            lines.append(margin + style.dim(path) + gap + content + id(row.id))
        }
        return lines
    }

    private func id(_ id: Int64) -> String {
        "  " + style.dim("#\(id)")
    }
}
