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

    /// Applies `edit`, giving anything it creates the id `nextID` (then decremented).
    /// - Returns: the outcome, and the edit with every address turned into an id or a plain
    ///   index, so that it can be replayed on the database in the same state.
    mutating func applyDraft(_ edit: Edit, nextID: inout Int64) throws -> (outcome: EditOutcome, resolved: Edit) {
        try edit.validate()
        var outcome = EditOutcome()
        var resolved = edit
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
            resolved = .addSection(title: title, emptyText: emptyText, at: index)

        case .renameSection(let ref, let title):
            let index = try sectionIndex(ref)
            resolved = .renameSection(.id(sections[index].id), title: title)
            guard sections[index].title != title else { break }
            sections[index].title = title
            outcome.changeset.updatedSections = [index]

        case .setEmptyText(let ref, let text):
            let index = try sectionIndex(ref)
            resolved = .setEmptyText(.id(sections[index].id), text)
            guard sections[index].emptyText != text else { break }
            sections[index].emptyText = text
            outcome.changeset.updatedSections = [index]

        case .moveSection(let ref, let destination):
            let index = try sectionIndex(ref)
            guard destination >= 0 && destination <= sections.count - 1 else {
                throw RepositoryError.sectionIndexOutOfRange(destination, valid: 0...(sections.count - 1))
            }
            resolved = .moveSection(.id(sections[index].id), to: destination)
            guard destination != index else { break }
            sections.insert(sections.remove(at: index), at: destination)
            outcome.changeset.movedSections = [.init(from: index, to: destination)]

        case .deleteSection(let ref, let force):
            let index = try sectionIndex(ref)
            let section = sections[index]
            guard section.rows.isEmpty || force else {
                throw RepositoryError.sectionNotEmpty(title: section.title, rowCount: section.rows.count)
            }
            resolved = .deleteSection(.id(section.id), force: true)
            sections.remove(at: index)
            outcome.changeset.deletedSections = [index]

        case .addRow(let content, let destination):
            let section = try sectionIndex(destination.section)
            let index = try SectionStore.destinationIndex(
                destination.index, section: section, count: sections[section].rows.count)
            let id = nextID
            nextID -= 1
            sections[section].rows.insert(Row(id: id, content: content), at: index)
            outcome.createdID = id
            outcome.changeset.insertedRows = [RowPath(section: section, row: index)]
            resolved = .addRow(content, to: RowDestination(section: .id(sections[section].id), index: .index(index)))

        case .updateRow(let ref, let title, let value):
            let path = try rowPath(ref)
            let row = self[path]
            let content = try SectionStore.updated(row.content, id: row.id, title: title, value: value)
            resolved = .updateRow(.id(row.id), title: content.title, value: content.value.map { .set($0) } ?? .remove)
            guard content != row.content else { break }
            sections[path.section].rows[path.row].content = content
            outcome.changeset.updatedRows = [path]

        case .deleteRow(let ref):
            let path = try rowPath(ref)
            resolved = .deleteRow(.id(self[path].id))
            sections[path.section].rows.remove(at: path.row)
            outcome.changeset.deletedRows = [path]

        case .moveRow(let ref, let destination):
            let path = try rowPath(ref)
            let section = try sectionIndex(destination.section)
            let sameSection = section == path.section
            let others = sections[section].rows.count - (sameSection ? 1 : 0)
            let index = try SectionStore.destinationIndex(destination.index, section: section, count: others)
            let row = self[path]
            resolved = .moveRow(.id(row.id), to: RowDestination(section: .id(sections[section].id), index: .index(index)))
            guard !(sameSection && index == path.row) else { break }
            sections[path.section].rows.remove(at: path.row)
            sections[section].rows.insert(row, at: index)
            outcome.changeset.movedRows = [.init(from: path, to: RowPath(section: section, row: index))]
        }
        return (outcome, resolved)
    }
}

extension Edit {
    /// The same edit with section ids passed through `sections` and row ids through `rows`
    /// (to turn draft ids into stored ones).
    func mappingIDs(sections: (Int64) -> Int64, rows: (Int64) -> Int64) -> Edit {
        func section(_ ref: SectionRef) -> SectionRef {
            if case .id(let id) = ref { return .id(sections(id)) }
            return ref
        }
        func destination(_ destination: RowDestination) -> RowDestination {
            RowDestination(section: section(destination.section), index: destination.index)
        }
        func row(_ ref: RowRef) -> RowRef {
            switch ref {
            case .id(let id): return .id(rows(id))
            case .path(let sectionRef, let index): return .path(section(sectionRef), index)
            }
        }
        switch self {
        case .addSection: return self
        case .renameSection(let ref, let title): return .renameSection(section(ref), title: title)
        case .setEmptyText(let ref, let text): return .setEmptyText(section(ref), text)
        case .moveSection(let ref, let to): return .moveSection(section(ref), to: to)
        case .deleteSection(let ref, let force): return .deleteSection(section(ref), force: force)
        case .addRow(let content, let to): return .addRow(content, to: destination(to))
        case .updateRow(let ref, let title, let value): return .updateRow(row(ref), title: title, value: value)
        case .deleteRow(let ref): return .deleteRow(row(ref))
        case .moveRow(let ref, let to): return .moveRow(row(ref), to: destination(to))
        }
    }
}
