/// The whole-buffer front of the JSON tokenizer: reads JSON text held in memory at once, for
/// records, a record's tree and templates. Places are byte offsets into the buffer; tokens have
/// no length limit here (the buffer is already in memory).
typealias JSONReader = JSONTokenizer<JSONBuffer>

/// Bytes held in memory at once: there is nothing to read more of.
struct JSONBuffer: JSONInput {
    let bytes: UnsafeBufferPointer<UInt8>

    var baseOffset: Int { 0 }
    static var maximumTokenLength: Int { .max }

    func refill(keeping: Int) -> Int? { nil }
}

extension JSONTokenizer where Input == JSONBuffer {
    /// A reader of `bytes`, starting at `index`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int = 0) {
        self.init(input: JSONBuffer(bytes: bytes), from: index)
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// The bytes in `range` as a string (already checked to be UTF-8).
    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// A whole document checked: one value and nothing after it but whitespace (a UTF-8 byte
    /// order mark before it is skipped).
    struct Document {
        /// The kind of the top-level value.
        var kind: JSONValueKind
        /// The value's text.
        var json: String
    }

    static func scanDocument(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> Document {
        var reader = JSONReader(bytes)
        reader.skipByteOrderMark()
        reader.skipWhitespace()
        let start = reader.index
        let kind = try reader.scanValue()
        let end = reader.index
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw reader.unexpected("expected the end of the document") }
        return Document(kind: kind, json: reader.text(start..<end))
    }
}
