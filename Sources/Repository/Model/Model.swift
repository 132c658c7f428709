/// What a row is: plain text, a heading inside its section, or a label with a value.
public enum RowKind: String, Sendable, CaseIterable, Codable {
    /// A row with a title.
    case text
    /// A heading row inside a section, with a title.
    case topic
    /// A label (the title) with a value, which may be absent.
    case field
}

/// A 0-based position in a list: a section index and a row index within that section,
/// like UIKit's `IndexPath`.
public struct RowPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 0-based index of the section in its list.
    public var section: Int
    /// The 0-based index of the row in its section.
    public var row: Int

    /// Creates the path of the row at `row` in the section at `section`.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    public static func < (lhs: RowPath, rhs: RowPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    /// `S:R`, the way the CLI prints and reads paths.
    public var description: String { "\(section):\(row)" }
}

/// The content of a row: everything but its identity and place.
public struct RowContent: Hashable, Sendable {
    /// The row's kind.
    public var kind: RowKind
    /// The title of a text or topic row, or the label of a field row.
    public var title: String
    /// A field row's value; `nil` when absent (displayed as "-"). Always `nil` for other kinds.
    public var value: String?

    /// Creates row content; a value is kept only for `field` rows.
    public init(kind: RowKind = .text, title: String, value: String? = nil) {
        self.kind = kind
        self.title = title
        self.value = kind == .field ? value : nil
    }

    /// A text row.
    public static func text(_ title: String) -> RowContent { RowContent(kind: .text, title: title) }
    /// A topic (heading) row.
    public static func topic(_ title: String) -> RowContent { RowContent(kind: .topic, title: title) }
    /// A field row: a label and an optional value.
    public static func field(_ label: String, _ value: String?) -> RowContent {
        RowContent(kind: .field, title: label, value: value)
    }

    /// The value as shown to people: the value, or "-" when absent.
    public var displayValue: String { value ?? "-" }
}

/// One row of a snapshot.
public struct Row: Hashable, Sendable, Identifiable {
    /// The row's stable id: never changes, never reused. Negative for a row created in an edit
    /// session that has not been saved yet.
    public var id: RowID
    /// The row's kind, title and value.
    public var content: RowContent

    /// Creates a row.
    public init(id: RowID, content: RowContent) {
        self.id = id
        self.content = content
    }

    /// The row's kind.
    public var kind: RowKind { content.kind }
    /// The row's title (a field's label).
    public var title: String { content.title }
    /// A field row's value, `nil` when absent.
    public var value: String? { content.value }
}

/// One section of a snapshot, with its rows in order.
public struct Section: Hashable, Sendable, Identifiable {
    /// The footer text shown for an empty section in an editing view when none is set.
    public static let defaultEmptyText = "No Data"

    /// The section's stable id. Negative for a section created in an unsaved edit session.
    public var id: SectionID
    /// The section's title.
    public var title: String
    /// What the footer says while the section is empty in an editing view; `nil` means "No Data".
    public var emptyText: String?
    /// The rows, in order.
    public var rows: [Row]

    /// Creates a section.
    public init(id: SectionID, title: String, emptyText: String? = nil, rows: [Row] = []) {
        self.id = id
        self.title = title
        self.emptyText = emptyText
        self.rows = rows
    }

    /// The footer in a view: the empty text ("No Data" unless set) when the section has no
    /// rows and the view is an editing view; otherwise `nil`. A footer is never a row.
    public func footer(editing: Bool) -> String? {
        editing && rows.isEmpty ? (emptyText ?? Section.defaultEmptyText) : nil
    }
}

/// A list's whole state at one version: its sections and rows in order.
public struct ListSnapshot: Hashable, Sendable {
    /// The list's stable id (0 when the snapshot was made by hand). With `version`, it names one
    /// state: a list deleted and made anew under the same name has another id.
    public var listID: ListID
    /// The list's name.
    public var name: String
    /// The list's version: grows by one with every committed change. An edit session's draft
    /// (`EditSession.snapshot()`) has a negative version of its own (`ListVersion.isDraft`),
    /// which no committed state of the list has.
    public var version: ListVersion
    /// Whether this is an editing view, in which empty sections show their footer.
    public var isEditing: Bool
    /// The sections, in order.
    public var sections: [Section]
    /// For an edit session's draft, the list's committed version that the draft starts from
    /// (the session's `baseVersion`); `nil` for the list as committed.
    public var draftOf: ListVersion?

    /// Creates a snapshot (`draftOf`: the committed version a session's draft starts from).
    public init(
        name: String, version: ListVersion, isEditing: Bool = false, sections: [Section] = [], listID: ListID = 0,
        draftOf: ListVersion? = nil
    ) {
        self.listID = listID
        self.name = name
        self.version = version
        self.isEditing = isEditing
        self.sections = sections
        self.draftOf = draftOf
    }

    /// The footer of the section at `index` in this view (see `Section.footer(editing:)`).
    public func footer(ofSection index: Int) -> String? {
        sections[index].footer(editing: isEditing)
    }

    /// The row at `path`.
    public subscript(path: RowPath) -> Row {
        sections[path.section].rows[path.row]
    }

    /// The number of rows in all sections.
    public var rowCount: Int { sections.reduce(0) { $0 + $1.rows.count } }
}

/// A list's name and counters, without its content.
public struct ListSummary: Hashable, Sendable {
    /// The list's stable id.
    public var id: ListID
    /// The list's unique name.
    public var name: String
    /// The list's version.
    public var version: ListVersion
    /// How many sections it has.
    public var sectionCount: Int
    /// How many rows it has in all.
    public var rowCount: Int

    /// Creates a summary.
    public init(id: ListID, name: String, version: ListVersion, sectionCount: Int, rowCount: Int) {
        self.id = id
        self.name = name
        self.version = version
        self.sectionCount = sectionCount
        self.rowCount = rowCount
    }
}
