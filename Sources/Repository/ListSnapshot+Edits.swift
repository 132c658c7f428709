/// Edits applied to a snapshot in memory: the draft of an edit session. Every check and error
/// matches what `SectionStore.apply(_:to:)` does to the database.
extension ListSnapshot {
    func sectionIndex(_ ref: SectionRef) throws -> Int {
        switch ref {
        case .index(let index):
            guard sections.indices.contains(index) else {
                throw RepositoryError.sectionIndexOutOfRange(index, valid: sections.isEmpty ? nil : 0...(sections.count - 1))
            }
            return index
        case .id(let id):
            guard let index = sections.firstIndex(where: { $0.id == id }) else {
                throw RepositoryError.sectionNotFound(ref, list: name, titles: sections.map(\.title))
            }
            return index
        case .title(let title):
            let matches = sections.indices.filter { sections[$0].title == title }
            guard matches.count == 1 else {
                if matches.isEmpty { throw RepositoryError.sectionNotFound(ref, list: name, titles: sections.map(\.title)) }
                throw RepositoryError.ambiguousSectionTitle(title, ids: matches.map { sections[$0].id })
            }
            return matches[0]
        }
    }

    func rowPath(_ ref: RowRef) throws -> RowPath {
        switch ref {
        case .path(let sectionRef, let rowIndex):
            let section = try sectionIndex(sectionRef)
            let count = sections[section].rows.count
            let index: Int
            switch rowIndex {
            case .index(let value): index = value
            case .end: index = count - 1
            }
            guard index >= 0 && index < count else {
                throw RepositoryError.rowIndexOutOfRange(index, section: section, valid: count > 0 ? 0...(count - 1) : nil)
            }
            return RowPath(section: section, row: index)
        case .id(let id):
            for (sectionIndex, section) in sections.enumerated() {
                if let row = section.rows.firstIndex(where: { $0.id == id }) {
                    return RowPath(section: sectionIndex, row: row)
                }
            }
            throw RepositoryError.rowNotFound(id, list: name)
        }
    }

    /// Applies `edit`, giving anything it creates the id `nextID` (then decremented). Checks
    /// everything before changing anything: when it throws, the snapshot is as it was.
    /// - Returns: the outcome, and the step that replays the edit on the database in the same
    ///   state, addressed by ids and neighbours only.
    mutating func applyDraft(_ edit: Edit, nextID: inout Int64) throws -> (outcome: EditOutcome, step: ReplayStep) {
        try edit.validate()
        var outcome = EditOutcome()
        let step: ReplayStep
        switch edit {
        case .addSection(let title, let emptyText, let at):
            let index = at ?? sections.count
            guard index >= 0 && index <= sections.count else {
                throw RepositoryError.sectionIndexOutOfRange(index, valid: 0...sections.count)
            }
            let id = nextID
            nextID -= 1
            sections.insert(Section(id: id, title: title, emptyText: emptyText), at: index)
            outcome.createdID = id
            outcome.changeset.insertedSections = [index]
            step = .insertSection(draftID: id, title: title, emptyText: emptyText, neighbours: sectionNeighbours(of: index))

        case .renameSection(let ref, let title):
            let index = try sectionIndex(ref)
            step = .setSection(id: sections[index].id, title: title, emptyText: sections[index].emptyText)
            guard sections[index].title != title else { break }
            sections[index].title = title
            outcome.changeset.updatedSections = [index]

        case .setEmptyText(let ref, let text):
            let index = try sectionIndex(ref)
            step = .setSection(id: sections[index].id, title: sections[index].title, emptyText: text)
            guard sections[index].emptyText != text else { break }
            sections[index].emptyText = text
            outcome.changeset.updatedSections = [index]

        case .moveSection(let ref, let destination):
            let index = try sectionIndex(ref)
            guard destination >= 0 && destination <= sections.count - 1 else {
                throw RepositoryError.sectionIndexOutOfRange(destination, valid: 0...(sections.count - 1))
            }
            if destination != index {
                sections.insert(sections.remove(at: index), at: destination)
                outcome.changeset.movedSections = [.init(from: index, to: destination)]
            }
            step = .moveSection(id: sections[destination].id, neighbours: sectionNeighbours(of: destination))

        case .deleteSection(let ref, let force):
            let index = try sectionIndex(ref)
            let section = sections[index]
            guard section.rows.isEmpty || force else {
                throw RepositoryError.sectionNotEmpty(title: section.title, rowCount: section.rows.count)
            }
            sections.remove(at: index)
            outcome.changeset.deletedSections = [index]
            step = .deleteSection(id: section.id)

        case .addRow(let content, let destination):
            let section = try sectionIndex(destination.section)
            let index = try SectionStore.destinationIndex(
                destination.index, section: section, count: sections[section].rows.count)
            let id = nextID
            nextID -= 1
            sections[section].rows.insert(Row(id: id, content: content), at: index)
            outcome.createdID = id
            outcome.changeset.insertedRows = [RowPath(section: section, row: index)]
            step = .insertRow(
                draftID: id, content: content, sectionID: sections[section].id,
                neighbours: rowNeighbours(of: RowPath(section: section, row: index)))

        case .updateRow(let ref, let title, let value):
            let path = try rowPath(ref)
            let row = self[path]
            let content = try SectionStore.updated(row.content, id: row.id, title: title, value: value)
            step = .setRow(id: row.id, content: content)
            guard content != row.content else { break }
            sections[path.section].rows[path.row].content = content
            outcome.changeset.updatedRows = [path]

        case .deleteRow(let ref):
            let path = try rowPath(ref)
            step = .deleteRow(id: self[path].id)
            sections[path.section].rows.remove(at: path.row)
            outcome.changeset.deletedRows = [path]

        case .moveRow(let ref, let destination):
            let path = try rowPath(ref)
            let section = try sectionIndex(destination.section)
            let sameSection = section == path.section
            let others = sections[section].rows.count - (sameSection ? 1 : 0)
            let index = try SectionStore.destinationIndex(destination.index, section: section, count: others)
            let target = RowPath(section: section, row: index)
            if !(sameSection && index == path.row) {
                let row = sections[path.section].rows.remove(at: path.row)
                sections[section].rows.insert(row, at: index)
                outcome.changeset.movedRows = [.init(from: path, to: target)]
            }
            step = .moveRow(id: self[target].id, sectionID: sections[section].id, neighbours: rowNeighbours(of: target))
        }
        // An edit that changed nothing in the draft has nothing to write.
        return (outcome, outcome.changeset.isEmpty ? .nothing : step)
    }

    /// The ids of the sections on either side of the one at `index`.
    private func sectionNeighbours(of index: Int) -> Neighbours {
        Neighbours(
            before: index > 0 ? sections[index - 1].id : nil,
            after: index + 1 < sections.count ? sections[index + 1].id : nil)
    }

    /// The ids of the rows on either side of the one at `path`, in its section.
    private func rowNeighbours(of path: RowPath) -> Neighbours {
        let rows = sections[path.section].rows
        return Neighbours(
            before: path.row > 0 ? rows[path.row - 1].id : nil, after: path.row + 1 < rows.count ? rows[path.row + 1].id : nil)
    }
}

/// The ids of an item's neighbours in its section or list (`nil` at an end).
struct Neighbours {
    var before: Int64?
    var after: Int64?
}

/// One edit of a session as it is written at save: by ids and neighbours, never by index, so
/// that replaying it costs O(log n) whatever the size of the section. Ids may be draft ids
/// (negative) of things the session created; `save` maps them to stored ids.
enum ReplayStep {
    case nothing
    case insertSection(draftID: Int64, title: String, emptyText: String?, neighbours: Neighbours)
    case setSection(id: Int64, title: String, emptyText: String?)
    case moveSection(id: Int64, neighbours: Neighbours)
    case deleteSection(id: Int64)
    case insertRow(draftID: Int64, content: RowContent, sectionID: Int64, neighbours: Neighbours)
    case setRow(id: Int64, content: RowContent)
    case moveRow(id: Int64, sectionID: Int64, neighbours: Neighbours)
    case deleteRow(id: Int64)
}
