// Typed stable ids for rows, sections and lists.
//
// Each wraps the `Int64` the store keeps, so that a row id cannot be passed where a section or
// list id is meant. They encode as the bare number, print as the bare number and sort as it.

/// What the three id types share: each wraps the number the store keeps, is written as an
/// integer literal, encodes as the bare number (`Codable`), sorts by it and prints as it.
public protocol StoredID: RawRepresentable<Int64>, Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible, CustomDebugStringConvertible
where IntegerLiteralType == Int64 {
    /// Creates the id from the number the store keeps.
    init(rawValue: Int64)
}

extension StoredID {
    /// Creates the id from the number the store keeps.
    public init(_ rawValue: Int64) { self.init(rawValue: rawValue) }

    /// Creates the id from a literal number.
    public init(integerLiteral value: Int64) { self.init(rawValue: value) }

    /// Decodes the id from a single number.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int64.self))
    }

    /// Encodes the id as a single number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Orders ids by their numbers.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number, as it is shown to people (`#` and the id in the CLI).
    public var description: String { String(rawValue) }

    /// The type and the number, as a test failure or the debugger shows it: `RowID(7)`.
    public var debugDescription: String { "\(Self.self)(\(rawValue))" }
}

/// The stable id of a row: never changes and is never reused (see `Row.id`).
/// Negative for a row created in an edit session that has not been saved yet.
public struct RowID: StoredID {
    /// The id as the store keeps it.
    public var rawValue: Int64

    /// Creates the id from the number the store keeps.
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// The stable id of a section: never changes and is never reused (see `Section.id`).
/// Negative for a section created in an edit session that has not been saved yet.
public struct SectionID: StoredID {
    /// The id as the store keeps it.
    public var rawValue: Int64

    /// Creates the id from the number the store keeps.
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// The stable id of a list: never changes and is never reused (see `ListSnapshot.listID`).
public struct ListID: StoredID {
    /// The id as the store keeps it.
    public var rawValue: Int64

    /// Creates the id from the number the store keeps.
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// The id of what a change created: a row, a section or a list.
public enum CreatedID: Hashable, Sendable, CustomStringConvertible {
    /// A row was created (`Edit.addRow`).
    case row(RowID)
    /// A section was created (`Edit.addSection`).
    case section(SectionID)
    /// A list was created (`SectionStore.createList`, or an import into a new list).
    case list(ListID)

    /// The id as the store keeps it, whatever was created.
    public var rawValue: Int64 {
        switch self {
        case .row(let id): return id.rawValue
        case .section(let id): return id.rawValue
        case .list(let id): return id.rawValue
        }
    }

    /// The row's id, when a row was created.
    public var rowID: RowID? {
        if case .row(let id) = self { return id }
        return nil
    }

    /// The section's id, when a section was created.
    public var sectionID: SectionID? {
        if case .section(let id) = self { return id }
        return nil
    }

    /// The list's id, when a list was created.
    public var listID: ListID? {
        if case .list(let id) = self { return id }
        return nil
    }

    /// The number, as it is shown to people.
    public var description: String { String(rawValue) }
}
