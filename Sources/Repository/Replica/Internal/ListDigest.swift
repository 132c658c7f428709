/// A digest of a list's contents — its sections and rows, in order, with their ids and texts —
/// that a replica and its server compute alike, to find out whether they differ (a replica whose
/// copy drifted in a way no journal says, a server restored from a backup): 64-bit FNV-1a over a
/// canonical form, as 16 hex digits. Not a cryptographic hash: it detects accidents, and both
/// sides are the same program's.
///
/// O(n) in the list's items: a sync asks for it only for lists of at most `everySyncUpTo`
/// items (and, above that, every `bigListInterval`th sync).
enum ListDigest {
    /// The largest list (sections and rows) whose every sync is checked.
    static let everySyncUpTo = 100_000
    /// How often a larger list's syncs are checked: every this many.
    static let bigListInterval: Int64 = 64

    /// The digest of `list` as `db` has it.
    static func of(_ list: ListRecord, db: any Database) throws -> String {
        var digest = Running()
        var section: Int64?
        try db.forEachSectionAndRow(of: list) { item, row in
            if section != item.id {
                section = item.id
                digest.add(section: item.id, title: item.title, emptyText: item.emptyText)
            }
            if let row { digest.add(row: row.id.rawValue, content: row.content) }
        }
        return digest.hex
    }

    /// A digest taken as the list goes by, section after section, each followed by its rows:
    /// what a clone's two ends compute over the items they send and receive.
    struct Running: Sendable {
        private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

        private mutating func feed(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }

        private mutating func feed(_ text: String) {
            for byte in text.utf8 { feed(byte) }
        }

        /// Ends a field with a separator no UTF-8 text holds.
        private mutating func endField() {
            feed(0xFF)
        }

        /// The field `tag` and `id` in decimal ("S12", "R7").
        private mutating func feed(tag: UInt8, id: Int64) {
            feed(tag)
            if id < 0 {
                feed(String(id))
            } else {
                var divisor: Int64 = 1
                while id / divisor >= 10 { divisor *= 10 }
                while divisor > 0 {
                    feed(UInt8(ascii: "0") + UInt8(id / divisor % 10))
                    divisor /= 10
                }
            }
            endField()
        }

        /// A text field.
        private mutating func field(_ text: String) {
            feed(text)
            endField()
        }

        /// An optional text field: `+` and the text, or `-`.
        private mutating func field(optional text: String?) {
            if let text {
                feed(UInt8(ascii: "+"))
                feed(text)
            } else {
                feed(UInt8(ascii: "-"))
            }
            endField()
        }

        /// Adds a section (before its rows).
        mutating func add(section id: Int64, title: String, emptyText: String?) {
            feed(tag: UInt8(ascii: "S"), id: id)
            field(title)
            field(optional: emptyText)
        }

        /// Adds a row of the section added last.
        mutating func add(row id: Int64, content: RowContent) {
            feed(tag: UInt8(ascii: "R"), id: id)
            field(content.kind.rawValue)
            field(content.title)
            field(optional: content.value)
        }

        /// The digest so far: 16 hex digits.
        var hex: String {
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
    }

    /// How many sections and rows `list` has.
    static func itemCount(_ list: ListRecord, db: any Database) throws -> Int {
        Int(try db.scalarInt("SELECT count(*) + coalesce(sum(row_count), 0) FROM sections WHERE list_id = ?", list.id) ?? 0)
    }
}
