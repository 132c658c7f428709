// Typed stable ids for rows, sections and lists.
//
// Each wraps the `Int64` the store keeps, so that a row id cannot be passed where a section or
// list id is meant. They encode as the bare number, print as the bare number and sort as it.

/// The stable id of a row: never changes and is never reused (see `Row.id`).
/// Negative for a row created in an edit session that has not been saved yet.
public struct RowID: RawRepresentable, Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The id as the store keeps it.
    public var rawValue: Int64

    /// Creates the id from the number the store keeps.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Creates the id from the number the store keeps.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Creates the id from a literal number.
    public init(integerLiteral value: Int64) { self.rawValue = value }

    /// Decodes the id from a single number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes the id as a single number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Orders ids by their numbers.
    public static func < (lhs: RowID, rhs: RowID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number, as it is shown to people (`#` and the id in the CLI).
    public var description: String { String(rawValue) }
}

/// The stable id of a section: never changes and is never reused (see `Section.id`).
/// Negative for a section created in an edit session that has not been saved yet.
public struct SectionID: RawRepresentable, Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The id as the store keeps it.
    public var rawValue: Int64

    /// Creates the id from the number the store keeps.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Creates the id from the number the store keeps.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Creates the id from a literal number.
    public init(integerLiteral value: Int64) { self.rawValue = value }

    /// Decodes the id from a single number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes the id as a single number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Orders ids by their numbers.
    public static func < (lhs: SectionID, rhs: SectionID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number, as it is shown to people (`#` and the id in the CLI).
    public var description: String { String(rawValue) }
}

/// The stable id of a list: never changes and is never reused (see `ListSnapshot.listID`).
public struct ListID: RawRepresentable, Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The id as the store keeps it.
    public var rawValue: Int64

    /// Creates the id from the number the store keeps.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Creates the id from the number the store keeps.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Creates the id from a literal number.
    public init(integerLiteral value: Int64) { self.rawValue = value }

    /// Decodes the id from a single number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes the id as a single number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Orders ids by their numbers.
    public static func < (lhs: ListID, rhs: ListID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number, as it is shown to people (`#` and the id in the CLI).
    public var description: String { String(rawValue) }
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

/// What the three id types share, for code that handles any of them by number.
protocol StoredID: Hashable, Sendable {
    /// The id as the store keeps it.
    var rawValue: Int64 { get }
    /// Creates the id from the number the store keeps.
    init(_ rawValue: Int64)
}

extension RowID: StoredID {}
extension SectionID: StoredID {}
extension ListID: StoredID {}
