extension Intent: CustomStringConvertible {
    /// What the intent does, in a few words for people: "move row #12", "add row \"Milk\"".
    public var description: String {
        switch self {
        case .addRow(let content, let placement): return "add row \"\(content.title)\" to section #\(placement.section)"
        case .moveRow(let id, let placement): return "move row #\(id) to section #\(placement.section)"
        case .updateRow(let id, _, _): return "change row #\(id)"
        case .deleteRow(let id): return "delete row #\(id)"
        case .addSection(let title, _, _): return "add section \"\(title)\""
        case .renameSection(let id, let title): return "rename section #\(id) to \"\(title)\""
        case .setEmptyText(let id, _): return "set the empty text of section #\(id)"
        case .moveSection(let id, _): return "move section #\(id)"
        case .deleteSection(let id, _): return "delete section #\(id)"
        }
    }
}

extension IntentOutcome: CustomStringConvertible {
    /// What became of an intent, for people: "applied", "placed after row #5 (its nearest
    /// neighbours were gone)", "dropped: row #7 is gone".
    public var description: String {
        switch self {
        case .applied:
            return "applied"
        case .placedElsewhere(let placed):
            let place: String
            switch placed {
            case .afterRow(let id): place = "after row #\(id)"
            case .beforeRow(let id): place = "before row #\(id)"
            case .inSection(let id, let index): place = "at index \(index) of section #\(id)"
            case .afterSection(let id): place = "after section #\(id)"
            case .beforeSection(let id): place = "before section #\(id)"
            case .inList(let index): place = "at section index \(index)"
            }
            return "placed \(place), its nearest neighbours being gone or moved away"
        case .dropped(let reason):
            switch reason {
            case .rowGone(let id): return "dropped: row #\(id) is gone"
            case .sectionGone(let id): return "dropped: section #\(id) is gone"
            case .destinationSectionGone(let section, let row): return "dropped: section #\(section) is gone; row #\(row) stays where it is"
            case .addedRowLost(let section, let content):
                return "dropped: section #\(section) is gone, so the row \"\(content.title)\" was not added"
            case .sectionNotEmpty(let id, let count): return "dropped: section #\(id) has \(count) row\(count == 1 ? "" : "s") by now"
            case .idInUse(let id): return "dropped: the item it puts back had #\(id), which another item has now"
            }
        }
    }
}
