/// The stages of a replica's `sync()`, where a test makes it fail (`SectionStore.syncFaults`).
package enum SyncStage: Sendable, CaseIterable {
    /// Before the request is sent.
    case beforePush
    /// The answer received, before it is used (a failure here is an answer lost).
    case afterPush
    /// Before the answer's facts are applied to the file.
    case afterPull
    /// In the replica's transaction, before it commits.
    case insideLocalWrite
}

/// `Intent`'s rules as a replica's intents need them: an added row or section carries the id it
/// took on the replica, and keeps it.
enum ReplicaRules {
    /// Carries out a replica's intent on `list` now, in the caller's transaction: the edits
    /// `resolve` gives, each insert with its id. Returns their changesets (the empty ones left out)
    /// and what became of the intent.
    static func apply(_ pending: PendingIntent, to list: inout StoredList) throws -> (changesets: [Changeset], outcome: IntentOutcome) {
        let (steps, outcome) = try resolve(pending.intent, newID: pending.newID, in: list)
        var changesets: [Changeset] = []
        for (edit, newID) in steps {
            list.newID = newID
            defer { list.newID = nil }
            let result = try EditRules.apply(edit, to: &list)
            if !result.changeset.isEmpty { changesets.append(result.changeset) }
        }
        return (changesets, outcome)
    }

    /// The edits that carry out `intent` on `list` now, each with the id its insert takes, and
    /// what became of the intent. An add whose id the list has already (an add retried, or undone
    /// and redone) moves that item to the placement and sets its content instead.
    static func resolve<List: EditableList>(_ intent: Intent, newID: Int64?, in list: List) throws
        -> (steps: [(Edit, Int64?)], outcome: IntentOutcome)
    {
        switch intent {
        case .addRow(let content, let placement):
            if let newID, try IntentRules.rowIfPresent(RowID(newID), in: list) != nil {
                let (edit, outcome) = try IntentRules.resolve(.moveRow(RowID(newID), to: placement), in: list)
                let value: ValueUpdate = content.kind == .field ? (content.value.map { .set($0) } ?? .remove) : .keep
                return ([edit, .updateRow(.id(RowID(newID)), title: content.title, value: value)].compactMap { $0 }.map { ($0, nil) }, outcome)
            }
        case .addSection(let title, let emptyText, let placement):
            if let newID, try IntentRules.sectionIfPresent(SectionID(newID), in: list) != nil {
                let id = SectionID(newID)
                let (edit, outcome) = try IntentRules.resolve(.moveSection(id, to: placement), in: list)
                let steps: [Edit?] = [edit, .renameSection(.id(id), title: title), .setEmptyText(.id(id), emptyText)]
                return (steps.compactMap { $0 }.map { ($0, nil) }, outcome)
            }
        default:
            break
        }
        let (edit, outcome) = try IntentRules.resolve(intent, in: list)
        return (edit.map { [($0, newID)] } ?? [], outcome)
    }
}
