import TestSupport
import Testing

@testable import Repository

/// Bytes through the executor seam (`SQLValue.blob`, `ResultRow.bytes(_:)`): a BLOB in a file, a
/// `bytea` on a server, every byte value kept.
@Suite("Bytes as arguments and results")
struct BlobArgumentTests {
    @Test(arguments: Backend.all) func everyByteValueGoesInAndComesBackOut(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let type = backend == .sqlite ? "BLOB" : "bytea"
        try fixture.plainSQL("CREATE TABLE blobs (id INTEGER PRIMARY KEY, data \(type) NOT NULL)")
        let all = (0...255).map(UInt8.init)
        let samples: [[UInt8]] = [all, Array(all.reversed()), [], [0], [0x5c, 0x78, 0x30]]
        let read = try fixture.store.write { db in
            for (id, bytes) in samples.enumerated() { try db.run("INSERT INTO blobs (id, data) VALUES (?, ?)", id, bytes) }
            return try db.query("SELECT data, length(data) FROM blobs ORDER BY id") { ($0.bytes(0), $0.int(1)) }
        }
        #expect(read.map(\.0) == samples)
        #expect(read.map(\.1) == samples.map(\.count), "stored as bytes, not as their text")
        // A blob is found by its value.
        let found = try fixture.store.read { db in try db.scalarInt("SELECT id FROM blobs WHERE data = ?", [UInt8]([0])) }
        #expect(found == 3)
    }
}
