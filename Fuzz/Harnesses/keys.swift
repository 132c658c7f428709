// The full-screen mode's key decoder, on whatever bytes a terminal (or a paste, or a program
// writing to the terminal) can send: it never traps and never holds more than one short
// sequence; how the bytes are split between reads changes no key; and the bytes of known keys,
// one after another, decode as those keys.
@testable import SectionCLI

/// Every key the decoder knows, as terminals send it (the input's bytes pick among them).
private let encodings: [(bytes: [UInt8], key: Key)] = [
    ("\u{1B}[A", .up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
    ("\u{1B}OA", .up), ("\u{1B}OB", .down), ("\u{1B}OC", .right), ("\u{1B}OD", .left),
    ("\u{1B}[H", .home), ("\u{1B}[F", .end), ("\u{1B}OH", .home), ("\u{1B}OF", .end),
    ("\u{1B}[1~", .home), ("\u{1B}[7~", .home), ("\u{1B}[4~", .end), ("\u{1B}[8~", .end),
    ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown), ("\u{1B}[5;5~", .pageUp), ("\u{1B}[1;5A", .up),
    ("\u{1B}[1;2B", .down), ("\u{1B}[005~", .pageUp),
    ("\r", .enter), ("\n", .enter), (" ", .space), ("\u{3}", .interrupt), ("\u{C}", .redraw),
    ("j", .character("j")), ("q", .character("q")), ("[", .character("[")), ("O", .character("O")),
    ("~", .character("~")), ("5", .character("5")), ("é", .character("é")), ("名", .character("名")),
    ("😀", .character("😀")), ("\u{7F}", .character("x")),
].map { text, key in (Array(text.utf8), key) }

/// Decodes `bytes` fed in pieces whose sizes `sizes` gives (cycling), then flushed; checks that
/// nothing but a short sequence is ever held.
private func decode(_ bytes: [UInt8], pieces sizes: [Int]) -> [Key] {
    var decoder = KeyDecoder()
    var keys: [Key] = []
    var offset = 0
    var turn = 0
    while offset < bytes.count {
        let size = sizes.isEmpty ? bytes.count : max(1, sizes[turn % sizes.count])
        let end = min(bytes.count, offset + size)
        keys += decoder.feed(Array(bytes[offset..<end]))
        require(decoder.pendingCount <= KeyDecoder.sequenceLimit, "\(decoder.pendingCount) bytes held")
        offset = end
        turn += 1
    }
    keys += decoder.flush()
    require(!decoder.hasPending, "bytes held after a flush")
    return keys
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeys(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))

    // Raw bytes: at once, a byte at a time, and in pieces the input's first bytes choose.
    let whole = decode(input, pieces: [])
    require(whole.count <= input.count, "\(whole.count) keys from \(input.count) bytes")
    let byByte = decode(input, pieces: [1])
    require(byByte == whole, "a byte at a time: \(byByte) ≠ \(whole)")
    let pieces = decode(input, pieces: input.prefix(4).map { Int($0 % 40) })
    require(pieces == whole, "in pieces: \(pieces) ≠ \(whole)")

    // Known keys one after another (DEL stands for a byte that is no key).
    let chosen = input.map { encodings[Int($0) % encodings.count] }
    let bytes = chosen.flatMap(\.bytes)
    let expected = chosen.compactMap { $0.bytes == [0x7F] ? nil : $0.key }
    let keys = decode(bytes, pieces: input.prefix(2).map { Int($0 % 7) })
    require(keys == expected, "known keys: \(keys) ≠ \(expected)")
    return 0
}
