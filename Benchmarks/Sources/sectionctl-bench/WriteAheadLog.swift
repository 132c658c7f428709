import Foundation

/// Reads a SQLite write-ahead log file to count the transactions committed to it.
///
/// The log is a 32-byte header (magic, format, page size, checkpoint sequence, two salts, a
/// checksum) followed by frames: a 24-byte header (page number, the database size in pages
/// for the frame that commits a transaction and 0 otherwise, the two salts, a checksum) and one
/// page. Frames whose salts differ from the header's are left over from before the log was
/// last restarted. After the log has been truncated to zero bytes, the valid commit frames are
/// exactly the transactions committed since.
enum WriteAheadLog {
    struct Contents: Equatable {
        /// Valid frames (pages written).
        var frames = 0
        /// Frames that commit a transaction.
        var commits = 0
    }

    static func read(_ path: String) throws -> Contents {
        guard FileManager.default.fileExists(atPath: path) else { return Contents() }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count >= 32 else { return Contents() }
        func word(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        guard word(0) & 0xFFFF_FFFE == 0x377F_0682 else {
            throw BenchmarkError("\(path) is not a SQLite write-ahead log")
        }
        let pageSize = Int(word(8) == 1 ? 65_536 : word(8))
        let salts = (word(16), word(20))
        var contents = Contents()
        var offset = 32
        while offset + 24 + pageSize <= bytes.count {
            guard (word(offset + 8), word(offset + 12)) == salts else { break }
            contents.frames += 1
            if word(offset + 4) != 0 { contents.commits += 1 }
            offset += 24 + pageSize
        }
        return contents
    }
}
