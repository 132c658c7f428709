import CCrypto

/// The few pieces of libcrypto the sync service uses: random bytes, SHA-256, and a comparison
/// that takes the same time wherever the bytes differ.
enum Crypto {
    /// `count` bytes from libcrypto's random generator, or `TokenError.noRandomness` when it
    /// cannot give them (never bytes of lesser quality).
    static func randomBytes(_ count: Int) throws(TokenError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard result == 1 else { throw .noRandomness }
        return bytes
    }

    /// The SHA-256 digest of `bytes` (32 bytes).
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only when libcrypto cannot allocate its context: nothing to go on with.
        precondition(result == 1 && length == 32, "libcrypto could not compute a SHA-256 digest")
        return Array(digest.prefix(32))
    }

    /// Whether `a` and `b` hold the same bytes, compared in time that depends on their length
    /// alone (CRYPTO_memcmp), so that a caller cannot learn from the time how much of a guess was
    /// right.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }
}
