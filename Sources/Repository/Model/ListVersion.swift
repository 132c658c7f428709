// The typed version of a list.

/// A version of a list: the number the list's every committed change raises by one.
///
/// A new list is at version 0 (or past it: see `SectionStore.createList`); each commit, undo,
/// redo, import or reload gives the list the next version, and the journal keeps the changes
/// that led to each. A version belongs to one list: version 7 of one list says nothing about
/// version 7 of another.
///
/// It wraps the `Int64` the store keeps, so that a version cannot be passed where an id, a
/// position or a count is meant, nor one of those where a version is. Like the ids (`StoredID`)
/// it is written as an integer literal, encodes as the bare number (the sync messages and the
/// CLI's JSON carry it so), prints as the bare number and sorts by it.
///
/// It is `Strideable` with an `Int64` stride, for the little arithmetic versions need: the next
/// version (`next`), the one before (`previous`), and how many versions lie between two
/// (`distance(to:)`), which is how many journal entries lead from one to the other.
public struct ListVersion: RawRepresentable, Hashable, Sendable, Codable, Strideable, ExpressibleByIntegerLiteral,
    CustomStringConvertible, CustomDebugStringConvertible
{
    /// The version as the store keeps it.
    public var rawValue: Int64

    /// Creates the version from the number the store keeps.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Creates the version from the number the store keeps.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Creates the version from a literal number.
    public init(integerLiteral value: Int64) { self.rawValue = value }

    /// Decodes the version from a single number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes the version as a single number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Whether this is the version of an edit session's draft (`EditSession.draftVersion`),
    /// which is negative, rather than one a list was committed at, which is 0 or more. A
    /// draft's snapshot carries it so that it cannot be mistaken for the list at a version:
    /// `ListHandle.changes(since:)` answers it with no changeset, and a read `atVersion:` it
    /// throws `RepositoryError.listMovedOn`. The arithmetic below is for committed versions.
    public var isDraft: Bool { rawValue < 0 }

    /// The version the list's next commit gives it.
    public var next: ListVersion { ListVersion(rawValue: rawValue + 1) }

    /// The version before this one: where the changes that made this version start from.
    public var previous: ListVersion { ListVersion(rawValue: rawValue - 1) }

    /// The version `n` commits later (earlier when `n` is negative).
    public func advanced(by n: Int64) -> ListVersion { ListVersion(rawValue: rawValue + n) }

    /// How many versions lead from this one to `other`: the number of journal entries between
    /// them (negative when `other` is older).
    public func distance(to other: ListVersion) -> Int64 { other.rawValue - rawValue }

    /// Orders versions by their numbers: the older first.
    public static func < (lhs: ListVersion, rhs: ListVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number, as it is shown to people ("version 7 of the list").
    public var description: String { String(rawValue) }

    /// The type and the number, as a test failure or the debugger shows it: `ListVersion(7)`.
    public var debugDescription: String { "ListVersion(\(rawValue))" }
}
