/// Where a row goes, as the person who put it there saw it: a section, and the rows around the
/// slot, nearest first. One value: the section and the neighbours are never taken apart, so a
/// row lands in the section its person chose, next to the nearest of the rows they saw that is
/// still there (`Intent`'s rules).
public struct RowPlacement: Hashable, Sendable, Codable {
    /// How many neighbours a recorded placement keeps on each side.
    public static let neighbourhood = 4

    /// The section the row goes into.
    public var section: SectionID
    /// The rows just before the slot, nearest first (`before[0]` is the row the slot follows).
    public var before: [RowID]
    /// The rows just after the slot, nearest first (`after[0]` is the row the slot precedes).
    public var after: [RowID]
    /// The slot's index in the section (counted without the row placed): where the row goes
    /// when none of the neighbours is left (at most the section's end).
    public var index: Int

    /// Creates a placement.
    public init(section: SectionID, before: [RowID] = [], after: [RowID] = [], index: Int) {
        self.section = section
        self.before = before
        self.after = after
        self.index = index
    }
}

/// Where a section goes, as its person saw the list: the sections around the slot, nearest
/// first.
public struct SectionPlacement: Hashable, Sendable, Codable {
    /// The sections just before the slot, nearest first.
    public var before: [SectionID]
    /// The sections just after the slot, nearest first.
    public var after: [SectionID]
    /// The slot's index in the list (counted without the section placed): where the section goes
    /// when none of the neighbours is left (at most the end).
    public var index: Int

    /// Creates a placement.
    public init(before: [SectionID] = [], after: [SectionID] = [], index: Int) {
        self.before = before
        self.after = after
        self.index = index
    }
}

/// A change as its person meant it, named by ids and places, never by index: what a list keeps of
/// an edit so that it can be applied again later, to a list others have changed in the meantime.
///
/// `ListHandle.intent(of:)` records one from an `Edit` and the list as it is;
/// `ListHandle.apply(_:)` applies one to the list as it is then, by these rules, in order:
///
/// 1. A row that the intent moves, changes or deletes and that no longer exists: the intent is
///    dropped (`IntentOutcome.dropped`).
/// 2. A placement whose section no longer exists: the intent is dropped, a move leaving the row
///    where it is; an added row's content is in the outcome, so nothing is lost unsaid.
/// 3. A placement: the row lands next to the nearest of its recorded neighbours that still exists
///    and is still in the placement's section, tried in the order `after before[0]`,
///    `before after[0]`, `after before[1]`, `before after[1]`, and so on. A neighbour moved to
///    another section counts as gone. When none is left, the row goes to the placement's index,
///    or to the section's end when it now has fewer rows. A row that lands anywhere but next to
///    `before[0]` or `after[0]` is reported (`IntentOutcome.placedElsewhere`), unless the
///    placement had no neighbours to keep (an empty section).
/// 4. A section placement follows rule 3 over sections.
/// 5. Text, values and empty texts are set as written; the last applied wins.
/// 6. A forced section delete deletes the section with the rows it holds when it is applied; an
///    unforced one is dropped when the section has rows by then.
///
/// These are the rules `EditSession.rebase()` applies to a session's edits, with more
/// neighbours kept: an intent may wait much longer than a session before it is applied.
public enum Intent: Hashable, Sendable {
    /// Adds a row with this content at a place.
    case addRow(RowContent, at: RowPlacement)
    /// Moves a row to a place, in its section or another.
    case moveRow(RowID, to: RowPlacement)
    /// Changes a row's title (`nil` keeps it) and value.
    case updateRow(RowID, title: String?, value: ValueUpdate)
    /// Deletes a row.
    case deleteRow(RowID)
    /// Adds a section at a place.
    case addSection(title: String, emptyText: String?, at: SectionPlacement)
    /// Renames a section.
    case renameSection(SectionID, title: String)
    /// Sets (or, with `nil`, clears) the text a section's empty footer shows while editing.
    case setEmptyText(SectionID, String?)
    /// Moves a section to a place.
    case moveSection(SectionID, to: SectionPlacement)
    /// Deletes a section; unless `force`, only while it has no rows.
    case deleteSection(SectionID, force: Bool)
}

/// What became of an intent applied to a list.
public enum IntentOutcome: Hashable, Sendable {
    /// Applied as meant: the row or section is next to the neighbour its person chose (or the
    /// intent needs no place).
    case applied
    /// Applied, but the neighbours its person chose are gone from the section: placed next to the
    /// nearest one left, or at the placement's index when none is.
    case placedElsewhere(Placed)
    /// Not applied, and why.
    case dropped(DropReason)

    /// Where an intent whose chosen neighbours were gone put its row or section.
    public enum Placed: Hashable, Sendable {
        /// Just after this row.
        case afterRow(RowID)
        /// Just before this row.
        case beforeRow(RowID)
        /// At this index of the section (the placement's, or the section's end).
        case inSection(SectionID, index: Int)
        /// Just after this section.
        case afterSection(SectionID)
        /// Just before this section.
        case beforeSection(SectionID)
        /// At this index of the list (the placement's, or the end).
        case inList(index: Int)
    }

    /// Why an intent was not applied.
    public enum DropReason: Hashable, Sendable {
        /// The row it moves, changes or deletes no longer exists.
        case rowGone(RowID)
        /// The section it changes, moves or deletes no longer exists.
        case sectionGone(SectionID)
        /// The section it moves a row into no longer exists; the row stays where it is.
        case destinationSectionGone(SectionID, row: RowID)
        /// The section it adds a row to no longer exists: the row, with its content, was not added.
        case addedRowLost(SectionID, content: RowContent)
        /// An unforced delete of a section that has rows now.
        case sectionNotEmpty(SectionID, rowCount: Int)
        /// An add that puts back an item under its old id (an undone delete), where another item
        /// has that id now: the add never takes that item over.
        case idInUse(Int64)
    }
}

/// The result of applying an intent: what became of it, and the change it made (`nil` when it
/// was dropped).
public struct IntentResult: Hashable, Sendable {
    /// What became of the intent.
    public var outcome: IntentOutcome
    /// The change, as applying the edit the intent resolved to returns it (`committed` false
    /// when that changed nothing); `nil` when the intent was dropped.
    public var change: Change?

    /// Creates a result.
    public init(outcome: IntentOutcome, change: Change?) {
        self.outcome = outcome
        self.change = change
    }
}
