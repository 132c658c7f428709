import Foundation
import Repository

/// The streaming front of the JSON tokenizer: reads one JSON document (RFC 8259, UTF-8) from a
/// stream of bytes a piece at a time and hands each value to a callback as a `JSONTreeNode`, in
/// the order `json_tree` would visit them: parents before children, members in the document's
/// order, numbers with their text as written, strings decoded.
///
/// Memory stays flat in the size of the document: only the value being read is held, and a
/// single string or number longer than `maximumTokenLength` bytes is refused as soon as it gets
/// there, so endless input (`/dev/zero`, a stream that never closes a string) fails instead of
/// growing. Nesting is refused past `JSONTokenizer.maximumDepth`. Errors say where they are
/// (line, column, byte offset), as `JSONReader`'s do.
struct JSONStream {
    /// The longest string or number accepted, in bytes as written: 8 MiB, room for the longest
    /// text a row holds (`SectionStore.maximumTextLength` bytes) even when every character is
    /// written as a `\uXXXX` escape.
    static let maximumTokenLength = 8 * 1024 * 1024
    static let chunkSize = 64 * 1024

    private var tokenizer: JSONTokenizer<JSONChunks>

    /// A stream reading with `read`, which returns the next piece of input, or `nil` or empty
    /// data at its end.
    init(read: @escaping () throws -> Data?) {
        tokenizer = JSONTokenizer(input: JSONChunks(read: read))
    }

    /// A stream over bytes already in memory.
    init(data: Data) {
        var pending: Data? = data
        self.init(read: {
            defer { pending = nil }
            return pending
        })
    }

    /// A stream reading a file handle `chunkSize` bytes at a time, telling `meter` of each.
    init(handle: FileHandle, meter: ProgressMeter? = nil) {
        guard let meter else {
            self.init(read: { try handle.read(upToCount: JSONStream.chunkSize) })
            return
        }
        self.init(read: {
            let chunk = try handle.read(upToCount: JSONStream.chunkSize)
            meter.add(bytes: chunk?.count ?? 0)
            return chunk
        })
    }

    /// Reads the whole document and calls `body` with each value.
    /// - Throws: `RepositoryError.invalidData` for malformed JSON or invalid UTF-8, placed in the
    ///   input; what reading the input throws; what `body` throws.
    mutating func forEachNode(_ body: (JSONTreeNode) throws -> Void) throws {
        do {
            tokenizer.skipByteOrderMark()
            try tokenizer.forEachNode(arrays: .elements, body)
            tokenizer.skipWhitespace()
            guard tokenizer.peek() == nil else { throw tokenizer.unexpected("expected the end of the document") }
        } catch let error as JSONSyntaxError {
            // The input ended early because it could not be read: that is the error to report.
            if let failure = tokenizer.input.readFailure { throw failure }
            throw RepositoryError.invalidData("invalid JSON at \(tokenizer.input.location(of: error.offset)): \(error.message)")
        }
        if let failure = tokenizer.input.readFailure { throw failure }
    }
}

/// Input read a piece at a time: the bytes not yet consumed (and the token being read), in a
/// buffer that grows only to hold the longest token.
final class JSONChunks: JSONInput {
    private let read: () throws -> Data?
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var atEnd = false
    /// Why the input ended early, when reading it threw.
    private(set) var readFailure: (any Error)?
    private(set) var baseOffset = 0
    // The place of `baseOffset`, for errors: the dropped bytes' lines, and the characters of the
    // current line among them.
    private var droppedLines = 0
    private var droppedColumns = 0

    static var maximumTokenLength: Int { JSONStream.maximumTokenLength }

    init(read: @escaping () throws -> Data?) {
        self.read = read
        capacity = JSONStream.chunkSize
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    func refill(keeping: Int) -> Int? {
        if atEnd { return nil }
        let chunk: Data
        do {
            guard let read = try read(), !read.isEmpty else {
                atEnd = true
                return nil
            }
            chunk = read
        } catch {
            readFailure = error
            atEnd = true
            return nil
        }
        // Count the lines and the current line's characters in what is dropped, for errors.
        let dropped = UnsafeBufferPointer(start: storage, count: keeping)
        let lines = Self.lineFeeds(in: dropped)
        var lineStart = 0
        if lines > 0 {
            droppedLines += Int(lines)
            droppedColumns = 0
            lineStart = keeping
            while dropped[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        }
        for byte in dropped[lineStart...] where byte & 0xC0 != 0x80 { droppedColumns += 1 }
        let kept = count - keeping
        if kept + chunk.count > capacity {
            capacity = max(kept + chunk.count, capacity * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            memcpy(grown, storage + keeping, kept)
            storage.deallocate()
            storage = grown
        } else if keeping > 0 {
            memmove(storage, storage + keeping, kept)
        }
        chunk.copyBytes(to: storage + kept, count: chunk.count)
        count = kept + chunk.count
        baseOffset += keeping
        return keeping
    }

    /// How many line feeds `bytes` hold. Every byte of the input passes through here once, so it
    /// looks at eight at a time: a byte of `word` is zero exactly when the byte was a line feed,
    /// and the sum below sets the high bit of each byte that is not zero, without carrying into
    /// the next byte.
    static func lineFeeds(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let lineFeeds: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var count = 0
        var position = 0
        while position + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self) ^ lineFeeds
            let notZero = ((word & low) &+ low) | word
            count += (~notZero & ~low).nonzeroBitCount
            position += 8
        }
        for byte in bytes[position...] where byte == UInt8(ascii: "\n") { count += 1 }
        return count
    }

    /// Line, column (in characters) and byte offset of `offset`, which is in the bytes at hand
    /// (or just past them).
    func location(of offset: Int) -> TextLocation {
        var line = droppedLines + 1
        var column = droppedColumns + 1
        let end = min(max(0, offset - baseOffset), count)
        for position in 0..<end {
            let byte = storage[position]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return TextLocation(line: line, column: column, offset: offset)
    }
}
