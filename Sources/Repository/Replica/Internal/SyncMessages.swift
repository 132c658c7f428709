import Foundation

/// The bodies of the sync service's requests and answers (docs/sync-protocol.md): what a replica
/// sends `sectionctl serve` and what it gets back, as JSON. The client (`HTTPSyncClient`) writes
/// the requests and reads the answers; the server (`SectionStore.serveSync`, run by the
/// SyncService module) reads the requests as an attacker could have written them and checks
/// every field against its own records before it uses one.
package enum SyncMessages {
    /// The answer to registering a replica (`POST /lists/NAME/replicas`): the replica's name,
    /// chosen by the server, and its first blocks of ids.
    package struct Registration: Codable, Sendable, Equatable {
        package var replica: String
        package var list: String
        package var version: ListVersion
        package var rowIDs: [IDRun]
        package var sectionIDs: [IDRun]

        package init(replica: String, list: String, version: ListVersion, rowIDs: [IDRun], sectionIDs: [IDRun]) {
            self.replica = replica
            self.list = list
            self.version = version
            self.rowIDs = rowIDs
            self.sectionIDs = sectionIDs
        }

        enum CodingKeys: String, CodingKey {
            case replica, list, version
            case rowIDs = "row_ids"
            case sectionIDs = "section_ids"
        }
    }

    /// A run of consecutive ids, `[first, last]` in JSON.
    package struct IDRun: Codable, Sendable, Equatable {
        package var first: Int64
        package var last: Int64

        package init(first: Int64, last: Int64) {
            self.first = first
            self.last = last
        }

        package var count: Int64 { last - first + 1 }

        /// `ids` as runs of consecutive values, in ascending order.
        package static func runs(of ids: [Int64]) -> [IDRun] {
            var result: [IDRun] = []
            for id in ids.sorted() {
                if let last = result.last, last.last + 1 == id {
                    result[result.count - 1].last = id
                } else if result.last.map({ $0.first <= id && id <= $0.last }) != true {
                    result.append(IDRun(first: id, last: id))
                }
            }
            return result
        }

        package init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            first = try container.decode(Int64.self)
            last = try container.decode(Int64.self)
            guard container.isAtEnd, first > 0, last >= first else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "an id run is [first, last], 0 < first <= last"))
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(first)
            try container.encode(last)
        }
    }

    /// One pending intent as a push carries it.
    package struct PushedIntent: Codable, Sendable, Equatable {
        /// Its number among the replica's intents: 1, 2, 3…, never reused.
        package var sequence: Int64
        package var intent: Intent
        /// The id an added row or section took on the replica: one the server gave it.
        package var newID: Int64?

        package init(sequence: Int64, intent: Intent, newID: Int64?) {
            self.sequence = sequence
            self.intent = intent
            self.newID = newID
        }

        enum CodingKeys: String, CodingKey {
            case sequence, intent
            case newID = "new_id"
        }
    }

    /// Which items a pull must read besides those the server's journal names: what the replica's
    /// pending intents touched.
    package struct ReadSet: Codable, Sendable, Equatable {
        package var rows: [Int64] = []
        package var sections: [Int64] = []
        /// Sections whose every row is read (sections the replica deleted).
        package var wholeSections: [Int64] = []

        package init(rows: [Int64] = [], sections: [Int64] = [], wholeSections: [Int64] = []) {
            self.rows = rows
            self.sections = sections
            self.wholeSections = wholeSections
        }

        package var count: Int { rows.count + sections.count + wholeSections.count }

        enum CodingKeys: String, CodingKey {
            case rows, sections
            case wholeSections = "whole_sections"
        }
    }

    /// A sync (`POST /lists/NAME/sync`): the intents the server has not acknowledged, and what to
    /// pull. Push and pull are one round trip.
    package struct SyncRequest: Codable, Sendable, Equatable {
        package var replica: String
        /// The server version the replica last pulled (0 for a whole read).
        package var knownVersion: ListVersion
        package var intents: [PushedIntent]
        package var read: ReadSet
        /// Read the whole list: the replica's copy changed outside sectionctl, or it is new.
        package var whole: Bool
        /// Answer with the digest of the list's contents (`ListDigest`), to compare.
        package var verify: Bool?

        package init(replica: String, knownVersion: ListVersion, intents: [PushedIntent], read: ReadSet, whole: Bool, verify: Bool? = nil) {
            self.replica = replica
            self.knownVersion = knownVersion
            self.intents = intents
            self.read = read
            self.whole = whole
            self.verify = verify
        }

        enum CodingKeys: String, CodingKey {
            case replica, intents, read, whole, verify
            case knownVersion = "known_version"
        }
    }

    /// What became of one pushed intent.
    package struct PushOutcome: Codable, Sendable, Equatable {
        package var sequence: Int64
        package var outcome: IntentOutcome
    }

    /// A section as the server has it.
    package struct SectionItem: Codable, Sendable, Equatable {
        package var id: Int64
        package var order: Int64
        package var index: Int
        package var title: String
        package var emptyText: String?
        /// The section before it; `nil` for the first.
        package var after: Int64?

        enum CodingKeys: String, CodingKey {
            case id, order, index, title, after
            case emptyText = "empty_text"
        }
    }

    /// A row as the server has it.
    package struct RowItem: Codable, Sendable, Equatable {
        package var id: Int64
        package var section: Int64
        package var sectionOrder: Int64
        package var order: Int64
        package var index: Int
        package var kind: RowKind
        package var title: String
        package var value: String?
        /// The row before it in its section; `nil` for the first.
        package var after: Int64?

        enum CodingKeys: String, CodingKey {
            case id, section, order, index, kind, title, value, after
            case sectionOrder = "section_order"
        }
    }

    /// The answer to a sync: what became of the intents, new ids when the replica was owed some,
    /// and where the items to pull stand after the push.
    package struct SyncAnswer: Codable, Sendable, Equatable {
        /// The list's version after the push.
        package var version: ListVersion
        /// The highest sequence the server has applied for this replica.
        package var acknowledged: Int64
        package var outcomes: [PushOutcome]
        package var rowIDs: [IDRun]
        package var sectionIDs: [IDRun]
        /// Whether the items are the whole list.
        package var whole: Bool
        package var sections: [SectionItem]
        package var rows: [RowItem]
        package var goneSections: [Int64]
        package var goneRows: [Int64]
        /// The digest of the list's contents after the push, when the request asked for it.
        package var digest: String?

        enum CodingKeys: String, CodingKey {
            case version, acknowledged, outcomes, whole, sections, rows, digest
            case rowIDs = "row_ids"
            case sectionIDs = "section_ids"
            case goneSections = "gone_sections"
            case goneRows = "gone_rows"
        }
    }

    /// An error's body: one line of JSON, `{"error": "..."}`.
    package struct ErrorBody: Codable, Sendable, Equatable {
        package var error: String

        package init(error: String) {
            self.error = error
        }
    }

    /// The encoder every message is written with: keys sorted, so a body is the same for the
    /// same message.
    package static func encode<T: Encodable>(_ message: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The messages hold strings, numbers, booleans and arrays: encoding them cannot fail.
        return Array((try? encoder.encode(message)) ?? Data("{}".utf8))
    }
}

extension SyncMessages.SyncAnswer {
    /// The answer's items as the facts a pull applies.
    var facts: PullFacts {
        var facts = PullFacts(version: version, whole: whole)
        for section in sections {
            facts.sections[SectionID(section.id)] = PullFacts.SectionFact(
                order: section.order, index: section.index, title: section.title, emptyText: section.emptyText,
                predecessor: section.after.map(SectionID.init))
        }
        for row in rows {
            facts.rows[RowID(row.id)] = PullFacts.RowFact(
                section: SectionID(row.section), sectionOrder: row.sectionOrder, order: row.order, index: row.index,
                content: RowContent(kind: row.kind, title: row.title, value: row.value), predecessor: row.after.map(RowID.init))
        }
        for id in goneSections { facts.sections[SectionID(id)] = .some(nil) }
        for id in goneRows { facts.rows[RowID(id)] = .some(nil) }
        return facts
    }

    /// The answer carrying `facts`.
    init(
        facts: PullFacts, acknowledged: Int64, outcomes: [SyncMessages.PushOutcome], rowIDs: [SyncMessages.IDRun],
        sectionIDs: [SyncMessages.IDRun]
    ) {
        self.version = facts.version
        self.acknowledged = acknowledged
        self.outcomes = outcomes
        self.rowIDs = rowIDs
        self.sectionIDs = sectionIDs
        self.whole = facts.whole
        sections = facts.sections.compactMap { id, fact in
            fact.map {
                SyncMessages.SectionItem(
                    id: id.rawValue, order: $0.order, index: $0.index, title: $0.title, emptyText: $0.emptyText, after: $0.predecessor?.rawValue)
            }
        }.sorted { $0.order < $1.order }
        rows = facts.rows.compactMap { id, fact in
            fact.map {
                SyncMessages.RowItem(
                    id: id.rawValue, section: $0.section.rawValue, sectionOrder: $0.sectionOrder, order: $0.order, index: $0.index,
                    kind: $0.content.kind, title: $0.content.title, value: $0.content.value, after: $0.predecessor?.rawValue)
            }
        }.sorted { ($0.sectionOrder, $0.order) < ($1.sectionOrder, $1.order) }
        goneSections = facts.sections.compactMap { $0.value == nil ? $0.key.rawValue : nil }.sorted()
        goneRows = facts.rows.compactMap { $0.value == nil ? $0.key.rawValue : nil }.sorted()
        digest = nil
    }
}
