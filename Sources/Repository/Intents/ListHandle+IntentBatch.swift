/// What a batch of intents applied as one change became (`ListHandle.apply(batch:expecting:)`).
package struct IntentBatchResult: Sendable {
    /// The list's version after the batch: a step past the one before when anything changed,
    /// the same when every intent was dropped or changed nothing.
    package var version: ListVersion
    /// What became of each intent, in the batch's order.
    package var outcomes: [IntentOutcome]
    /// The one changeset of the batch, composed; `nil` when nothing changed.
    package var changeset: Changeset?
}

/// Why a batch was not applied (`ListHandle.apply(batch:expecting:)`): nothing was written.
package enum IntentBatchRefusal: Error, Sendable, Equatable {
    /// The list is not at the version the batch was made against: someone else saved meanwhile.
    case listMovedOn(expected: ListVersion, current: ListVersion)
}

extension ListHandle {
    /// Applies `intents` in order to the list as it is now, by `Intent`'s rules, in one
    /// transaction and as one version: what a page's Save of a whole reorder writes. An intent
    /// the rules drop is reported and the others still apply.
    /// - Parameter expected: when given, the version the list must be at, or nothing is written
    ///   (`IntentBatchRefusal.listMovedOn`).
    /// - Throws: `IntentBatchRefusal`; `RepositoryError` for an intent the rules cannot apply
    ///   (nothing is written then either).
    package func apply(batch intents: [Intent], expecting expected: ListVersion?) throws -> IntentBatchResult {
        let name = name
        return try store.write { db in
            let record = try db.listRecord(named: name)
            if let expected, expected != record.version {
                throw IntentBatchRefusal.listMovedOn(expected: expected, current: record.version)
            }
            var stored = StoredList(db: db, list: record, store: store)
            var changesets: [Changeset] = []
            var outcomes: [IntentOutcome] = []
            for intent in intents {
                let (edit, outcome) = try IntentRules.resolve(intent, in: stored)
                outcomes.append(outcome)
                guard let edit else { continue }
                let result = try EditRules.apply(edit, to: &stored)
                if !result.changeset.isEmpty { changesets.append(result.changeset) }
            }
            guard !changesets.isEmpty else { return IntentBatchResult(version: record.version, outcomes: outcomes, changeset: nil) }
            let changeset = Changeset(composing: changesets)
            let version = try store.bumpVersion(of: record, recording: changeset, db: db)
            return IntentBatchResult(version: version, outcomes: outcomes, changeset: changeset)
        }
    }
}
