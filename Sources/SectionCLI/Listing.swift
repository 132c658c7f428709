import CommandLineSupport
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
///
/// The listing is written as the rows come (`ListingWriter`), so a list of any size is printed
/// in the memory of a few rows: paths are as wide as the list's widest (known from its header),
/// and field labels are aligned over a section's rows, in blocks of `ListingWriter.blockSize`
/// rows for a longer section.
struct Listing {
    /// Colours, or none.
    var style: Style

    /// The whole listing, ending with a line break.
    func render(_ snapshot: ListSnapshot, header: String? = nil) -> String {
        var text = ""
        var writer = ListingWriter(style: style) { text += $0 }
        // Paths take at least "0:0"'s width, so that footers line up however many rows there are.
        let pathWidth =
            snapshot.sections.enumerated().map { index, section in
                section.rows.isEmpty ? 3 : "\(index):\(section.rows.count - 1)".count
            }.max() ?? 3
        writer.begin(
            ListHeader(
                listID: 0, name: snapshot.name, version: snapshot.version, isEditing: snapshot.isEditing,
                sectionCount: snapshot.sections.count, rowCount: snapshot.rowCount, pathWidth: pathWidth),
            title: header)
        for (sectionIndex, section) in snapshot.sections.enumerated() {
            writer.take(
                .section(
                    SectionInfo(
                        id: section.id, index: sectionIndex, title: section.title, emptyText: section.emptyText,
                        rowCount: section.rows.count)))
            for (rowIndex, row) in section.rows.enumerated() {
                writer.take(.row(row, at: RowPath(section: sectionIndex, row: rowIndex)))
            }
        }
        writer.finish()
        return text
    }
}

/// Writes the listing of a list a line at a time as its sections and rows come: what `show`
/// streams, and what `Listing.render` collects.
struct ListingWriter {
    /// Rows whose field labels are aligned together, at most.
    static let blockSize = 1_000

    let style: Style
    private let write: (String) -> Void
    private var editing = false
    private var pathWidth = 3
    private var block: [(path: RowPath, row: Row)] = []

    init(style: Style, write: @escaping (String) -> Void) {
        self.style = style
        self.write = write
    }

    /// The list's header line (or `title` instead), and a hint when it has no sections.
    mutating func begin(_ header: ListHeader, title: String? = nil) {
        editing = header.isEditing
        pathWidth = max(3, header.pathWidth)
        let state = header.isEditing ? ", editing" : ""
        line(title ?? style.bold(TextEscaping.escaped(header.name)) + " (version \(header.version)\(state))")
        if header.sectionCount == 0 {
            line("")
            line(style.dim("(no sections yet; add one with: section add TITLE)"))
        }
    }

    mutating func take(_ item: ListItem) {
        switch item {
        case .section(let section):
            flush()
            line("")
            line(style.cyan("[\(section.index)]") + " " + style.bold(TextEscaping.escaped(section.title)) + id(section.id))
            if let footer = section.footer(editing: editing) {
                let indent = "  " + String(repeating: " ", count: pathWidth) + "  "
                line(indent + style.italic(style.dim("(" + TextEscaping.escaped(footer) + ")")))
            }
        case .row(let row, let path):
            block.append((path, row))
            if block.count == Self.blockSize { flush() }
        }
    }

    /// Writes the rows still waiting.
    mutating func finish() {
        flush()
    }

    /// Writes the block of rows, field values starting in one column across it.
    private mutating func flush() {
        guard !block.isEmpty else { return }
        var labelColumn = 0
        var labels: [String?] = []
        labels.reserveCapacity(block.count)
        for (_, row) in block {
            guard row.kind == .field else {
                labels.append(nil)
                continue
            }
            let label = TextEscaping.escaped(row.title)
            labelColumn = max(labelColumn, DisplayWidth.of(label))
            labels.append(label)
        }
        var text = ""
        text.reserveCapacity(block.count * 48)
        let rowLine = RowLine(style: style)
        for (index, (path, row)) in block.enumerated() {
            rowLine.append(row, path: path, pathWidth: pathWidth, label: labels[index], labelColumn: labelColumn, to: &text)
        }
        write(text)
        block.removeAll(keepingCapacity: true)
    }

    private func line(_ text: String) {
        write(text + "\n")
    }

    private func id(_ id: SectionID) -> String {
        "  " + style.dim("#\(id)")
    }
}

/// One row as every listing prints it — `  S:R  content  #ID` — with the path padded to
/// `pathWidth` and a field's label to `labelColumn` (display widths), user text escaped.
struct RowLine {
    var style: Style

    /// The display width of the widest escaped field label among `rows`: where values start.
    static func labelColumn(_ rows: some Sequence<Row>) -> Int {
        rows.filter { $0.kind == .field }.map { DisplayWidth.of(TextEscaping.escaped($0.title)) }.max() ?? 0
    }

    /// Appends the row's line (with its line break) to `text`. `label` is the field's escaped
    /// label when the caller has it already.
    func append(_ row: Row, path: RowPath, pathWidth: Int, label: String? = nil, labelColumn: Int, to text: inout String) {
        // Paths are ASCII: one cell per byte.
        var shownPath = "\(path.section):\(path.row)"
        let missing = pathWidth - shownPath.utf8.count
        if missing > 0 { shownPath += String(repeating: " ", count: missing) }
        text += "  "
        text += style.dim(shownPath)
        text += "  "
        switch row.kind {
        case .text:
            text += TextEscaping.escaped(row.title)
        case .topic:
            text += style.bold("# " + TextEscaping.escaped(row.title))
        case .field:
            text += style.yellow(DisplayWidth.padded(label ?? TextEscaping.escaped(row.title), to: labelColumn))
            text += "  "
            if let value = row.value {
                text += TextEscaping.escaped(value)
            } else {
                text += style.dim("-")
            }
        }
        text += "  " + style.dim("#\(row.id)")
        text += "\n"
    }

    /// The row's line, without its line break.
    func line(_ row: Row, path: RowPath, pathWidth: Int, labelColumn: Int) -> String {
        var text = ""
        append(row, path: path, pathWidth: pathWidth, labelColumn: labelColumn, to: &text)
        text.removeLast()
        return text
    }
}
