import Postgres
import Testing

/// `Bytea`: bytes as the text a `bytea` argument sends and a result brings back.
@Suite struct ByteaTests {
    @Test func byteaTextDecodesInTheHexAndTheEscapeFormat() {
        let bytes: [UInt8] = [0, 0x5c, 0x41, 0xff, 0x27]
        #expect(Bytea.encode(bytes) == "\\x005c41ff27")
        #expect(Bytea.decode(Bytea.encode(bytes)) == bytes)
        #expect(Bytea.decode("\\x") == [])
        #expect(Bytea.decode(#"\000\\A\377'"#) == bytes)
        #expect(Bytea.decode("\\x5") == nil)
        #expect(Bytea.decode("\\xzz") == nil)
        #expect(Bytea.decode(#"\9"#) == nil)
    }
}
