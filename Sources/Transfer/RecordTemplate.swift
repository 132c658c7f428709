import Foundation
import Repository

/// How records import shows a record: the section title, the labels and order of its keys,
/// the titles of its topics, which keys are expected, and whether keys it does not list are
/// kept or dropped. Written as JSON; `docs/formats.md` documents the format.
///
/// ```json
/// {"title": "ユーザー情報",
///  "fields": ["id", {"key": "name", "label": "名前"},
///             {"key": "favorite", "label": "お気に入り",
///              "fields": [{"key": "drink", "label": "飲み物"}]}]}
/// ```
public struct RecordTemplate: Sendable, Hashable {
    /// What to do with the keys of a record (or nested object) that the template does not list.
    public enum UnlistedKeys: String, Sendable, Hashable {
        /// Keep them, in the document's order, after the listed ones.
        case keep
        /// Leave them out.
        case drop
    }

    /// One key the template lists.
    public struct Field: Sendable, Hashable {
        /// The key in the record.
        public var key: String
        /// What the row shows: the field's label, or the topic's title.
        public var label: String
        /// Whether a record without this key still gets its row, with a missing value (shown
        /// "-"); for a topic, the topic row followed by its expected fields.
        public var isExpected: Bool
        /// For a key whose value is an object: its keys in order. `nil` keeps them as the
        /// document has them.
        public var fields: [Field]?
        /// For a key whose value is an object: what to do with its unlisted keys; `nil` does what
        /// the enclosing level does.
        public var unlisted: UnlistedKeys?

        /// Creates a template entry; the label defaults to the key.
        public init(key: String, label: String? = nil, isExpected: Bool = true, fields: [Field]? = nil, unlisted: UnlistedKeys? = nil) {
            self.key = key
            self.label = label ?? key
            self.isExpected = isExpected
            self.fields = fields
            self.unlisted = unlisted
        }
    }

    /// The section title, with `{key}` replaced by the text of the record's top-level `key`
    /// ("-" when it has none), `{#}` by the record's number (1, 2, …), `{{` and `}}` by braces.
    /// `nil` leaves the title to `RecordsImportOptions.titleKey`, then to "Record N".
    public var title: String?
    /// The record's keys, in the order their rows come.
    public var fields: [Field]
    /// What to do with the record's unlisted keys (kept, after the listed ones, by default).
    public var unlisted: UnlistedKeys

    /// Creates a template.
    public init(title: String? = nil, fields: [Field] = [], unlisted: UnlistedKeys = .keep) {
        self.title = title
        self.fields = fields
        self.unlisted = unlisted
    }

    /// Reads a template from its JSON form.
    /// - Throws: `RepositoryError.invalidData` naming the place (line and column, or the JSON
    ///   path) when the text is not a valid template.
    public init(json: Data) throws {
        self = try TemplateReader.template(from: json)
    }
}
