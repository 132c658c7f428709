/// The rules of `Intent`, written once over `EditableList`: recording an intent from an `Edit`
/// and the list it is about to change, and resolving one against a list as it is now into the
/// `Edit` that carries it out (or the reason it is dropped).
enum IntentRules {
    // MARK: Recording

    /// The intent of `edit`, read from `list` as it is before the edit: every reference by id,
    /// every destination as a placement with its neighbours. Throws what the edit would throw for
    /// a reference that names nothing or an index out of range.
    static func record<List: EditableList>(_ edit: Edit, in list: List) throws -> Intent {
        try edit.validate()
        switch edit {
        case .addSection(let title, let emptyText, let at):
            let count = try list.sectionCount()
            let index = at ?? count
            guard index >= 0 && index <= count else { throw RepositoryError.sectionIndexOutOfRange(index, valid: 0...count) }
            return .addSection(title: title, emptyText: emptyText, at: try sectionPlacement(slot: index, moving: nil, count: count, in: list))

        case .renameSection(let ref, let title):
            return .renameSection(try list.section(ref).id, title: title)

        case .setEmptyText(let ref, let text):
            return .setEmptyText(try list.section(ref).id, text)

        case .moveSection(let ref, let destination):
            let section = try list.section(ref)
            let count = try list.sectionCount()
            guard destination >= 0 && destination < count else {
                throw RepositoryError.sectionIndexOutOfRange(destination, valid: 0...(count - 1))
            }
            return .moveSection(section.id, to: try sectionPlacement(slot: destination, moving: section.index, count: count, in: list))

        case .deleteSection(let ref, let force):
            let section = try list.section(ref)
            guard section.rowCount == 0 || force else {
                throw RepositoryError.sectionNotEmpty(title: section.title, rowCount: section.rowCount)
            }
            return .deleteSection(section.id, force: force)

        case .addRow(let content, let destination):
            let (section, index) = try EditRules.place(destination, of: nil, in: list)
            return .addRow(content, at: try rowPlacement(slot: index, in: section, moving: nil, list: list))

        case .updateRow(let ref, let title, let value):
            let row = try list.row(ref)
            _ = try SectionStore.updated(row.row.content, id: row.row.id, title: title, value: value)  // a value on a text row
            return .updateRow(row.row.id, title: title, value: value)

        case .deleteRow(let ref):
            return .deleteRow(try list.row(ref).row.id)

        case .moveRow(let ref, let destination):
            let row = try list.row(ref)
            let (section, index) = try EditRules.place(destination, of: row, in: list)
            let movingIndex = row.section.id == section.id ? row.path.row : nil
            return .moveRow(row.row.id, to: try rowPlacement(slot: index, in: section, moving: movingIndex, list: list))
        }
    }

    /// The placement of the slot `slot` of `section`, counted without the row at `moving` (an
    /// index in the section) when one moves inside it.
    static func rowPlacement<List: EditableList>(slot: Int, in section: SectionInfo, moving: Int?, list: List) throws -> RowPlacement {
        let others = section.rowCount - (moving == nil ? 0 : 1)
        func id(at index: Int) throws -> RowID {
            let actual = moving.map { index >= $0 ? index + 1 : index } ?? index
            return try list.row(.path(.id(section.id), .index(actual))).row.id
        }
        let span = RowPlacement.neighbourhood
        let before = try (max(0, slot - span)..<slot).reversed().map(id(at:))
        let after = try (slot..<min(others, slot + span)).map(id(at:))
        return RowPlacement(section: section.id, before: before, after: after, index: slot)
    }

    /// The placement of the slot `slot` among the list's `count` sections, counted without the
    /// section at index `moving` when one moves.
    static func sectionPlacement<List: EditableList>(slot: Int, moving: Int?, count: Int, in list: List) throws -> SectionPlacement {
        let others = count - (moving == nil ? 0 : 1)
        func id(at index: Int) throws -> SectionID {
            let actual = moving.map { index >= $0 ? index + 1 : index } ?? index
            return try list.section(.index(actual)).id
        }
        let span = RowPlacement.neighbourhood
        let before = try (max(0, slot - span)..<slot).reversed().map(id(at:))
        let after = try (slot..<min(others, slot + span)).map(id(at:))
        return SectionPlacement(before: before, after: after, index: slot)
    }

    // MARK: Resolving

    /// What carries out `intent` on `list` as it is now: the edit and how it relates to what was
    /// meant, or `nil` and why it is dropped (the rules in `Intent`'s documentation).
    static func resolve<List: EditableList>(_ intent: Intent, in list: List) throws -> (edit: Edit?, outcome: IntentOutcome) {
        switch intent {
        case .addRow(let content, let placement):
            guard try sectionIfPresent(placement.section, in: list) != nil else {
                return (nil, .dropped(.addedRowLost(placement.section, content: content)))
            }
            let (destination, outcome) = try destination(placement, moving: nil, in: list)
            return (.addRow(content, to: destination), outcome)

        case .moveRow(let id, let placement):
            guard try rowIfPresent(id, in: list) != nil else { return (nil, .dropped(.rowGone(id))) }
            guard try sectionIfPresent(placement.section, in: list) != nil else {
                return (nil, .dropped(.destinationSectionGone(placement.section, row: id)))
            }
            let (destination, outcome) = try destination(placement, moving: id, in: list)
            return (.moveRow(.id(id), to: destination), outcome)

        case .updateRow(let id, let title, let value):
            guard try rowIfPresent(id, in: list) != nil else { return (nil, .dropped(.rowGone(id))) }
            return (.updateRow(.id(id), title: title, value: value), .applied)

        case .deleteRow(let id):
            guard try rowIfPresent(id, in: list) != nil else { return (nil, .dropped(.rowGone(id))) }
            return (.deleteRow(.id(id)), .applied)

        case .addSection(let title, let emptyText, let placement):
            let (index, outcome) = try sectionIndex(placement, moving: nil, in: list)
            return (.addSection(title: title, emptyText: emptyText, at: index), outcome)

        case .renameSection(let id, let title):
            guard try sectionIfPresent(id, in: list) != nil else { return (nil, .dropped(.sectionGone(id))) }
            return (.renameSection(.id(id), title: title), .applied)

        case .setEmptyText(let id, let text):
            guard try sectionIfPresent(id, in: list) != nil else { return (nil, .dropped(.sectionGone(id))) }
            return (.setEmptyText(.id(id), text), .applied)

        case .moveSection(let id, let placement):
            guard let section = try sectionIfPresent(id, in: list) else { return (nil, .dropped(.sectionGone(id))) }
            let (index, outcome) = try sectionIndex(placement, moving: section, in: list)
            return (.moveSection(.id(id), to: index), outcome)

        case .deleteSection(let id, let force):
            guard let section = try sectionIfPresent(id, in: list) else { return (nil, .dropped(.sectionGone(id))) }
            guard force || section.rowCount == 0 else { return (nil, .dropped(.sectionNotEmpty(id, rowCount: section.rowCount))) }
            return (.deleteSection(.id(id), force: force), .applied)
        }
    }

    /// The neighbours of a placement in the order they are tried: after `before[0]`, before
    /// `after[0]`, after `before[1]`, and so on, each with whether it is one of the two nearest.
    static func tries<ID>(before: [ID], after: [ID]) -> [(id: ID, after: Bool, nearest: Bool)] {
        var result: [(id: ID, after: Bool, nearest: Bool)] = []
        for index in 0..<max(before.count, after.count) {
            if index < before.count { result.append((before[index], true, index == 0)) }
            if index < after.count { result.append((after[index], false, index == 0)) }
        }
        return result
    }

    /// Where a row placed by `placement` goes in `list` now (rule 3). The placement's section
    /// exists.
    static func destination<List: EditableList>(_ placement: RowPlacement, moving: RowID?, in list: List) throws
        -> (RowDestination, IntentOutcome)
    {
        let tries = tries(before: placement.before, after: placement.after)
        for neighbour in tries where neighbour.id != moving {
            guard let row = try rowIfPresent(neighbour.id, in: list), row.section.id == placement.section else { continue }
            let destination: RowDestination = neighbour.after ? .after(neighbour.id) : .before(neighbour.id)
            if neighbour.nearest { return (destination, .applied) }
            return (destination, .placedElsewhere(neighbour.after ? .afterRow(neighbour.id) : .beforeRow(neighbour.id)))
        }
        let section = try list.section(.id(placement.section))
        let others = section.rowCount - (try moving.flatMap { try rowIfPresent($0, in: list) }?.section.id == section.id ? 1 : 0)
        let index = min(max(placement.index, 0), others)
        let destination = RowDestination(section: .id(placement.section), index: .index(index))
        if tries.isEmpty { return (destination, .applied) }
        return (destination, .placedElsewhere(.inSection(placement.section, index: index)))
    }

    /// The index a section placed by `placement` gets in `list` now (rule 4), counted without
    /// `moving`, which exists.
    static func sectionIndex<List: EditableList>(_ placement: SectionPlacement, moving: SectionInfo?, in list: List) throws
        -> (Int, IntentOutcome)
    {
        let tries = tries(before: placement.before, after: placement.after)
        for neighbour in tries where neighbour.id != moving?.id {
            guard let section = try sectionIfPresent(neighbour.id, in: list) else { continue }
            var index = section.index
            if let moving, moving.index < index { index -= 1 }
            if neighbour.after { index += 1 }
            if neighbour.nearest { return (index, .applied) }
            return (index, .placedElsewhere(neighbour.after ? .afterSection(neighbour.id) : .beforeSection(neighbour.id)))
        }
        let others = try list.sectionCount() - (moving == nil ? 0 : 1)
        let index = min(max(placement.index, 0), others)
        if tries.isEmpty { return (index, .applied) }
        return (index, .placedElsewhere(.inList(index: index)))
    }

    /// The row with this id, or `nil` when the list has none (any other failure is thrown).
    static func rowIfPresent<List: EditableList>(_ id: RowID, in list: List) throws -> LocatedRow? {
        do {
            return try list.row(.id(id))
        } catch RepositoryError.rowNotFound {
            return nil
        }
    }

    /// The section with this id, or `nil` when the list has none (any other failure is thrown).
    static func sectionIfPresent<List: EditableList>(_ id: SectionID, in list: List) throws -> SectionInfo? {
        do {
            return try list.section(.id(id))
        } catch RepositoryError.sectionNotFound {
            return nil
        }
    }
}
