import Crypto
import Testing

/// SHA-256 against the NIST FIPS 180-2 example vectors (Appendix B) and the empty-string digest.
struct SHA256Tests {
    /// One NIST example: the message and its digest.
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let message: [UInt8]
        let digest: String
        var testDescription: String { name }
    }

    /// FIPS 180-2 Appendix B.1 ("abc"), B.2 (448 bits), B.3 (one million "a"), and SHA-256("").
    static let vectors: [Vector] = [
        Vector(
            name: "empty", message: [],
            digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(
            name: "FIPS 180-2 B.1 abc", message: Array("abc".utf8),
            digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(
            name: "FIPS 180-2 B.2 448 bits",
            message: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        Vector(
            name: "FIPS 180-2 B.3 one million a", message: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000),
            digest: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ]

    @Test("one-shot digest", arguments: vectors)
    func oneShot(vector: Vector) {
        #expect(SHA256.hash(vector.message).hex == vector.digest)
        #expect(SHA256.hash(vector.message).bytes == Hex.decode(vector.digest))
    }

    @Test("incremental digest in uneven chunks", arguments: vectors)
    func incremental(vector: Vector) {
        for chunkSize in [1, 3, 55, 56, 63, 64, 65, 1000] where chunkSize <= max(vector.message.count, 1) {
            var hasher = SHA256()
            var start = 0
            while start < vector.message.count {
                let end = min(start + chunkSize, vector.message.count)
                hasher.update(vector.message[start..<end])
                start = end
            }
            #expect(hasher.finalize().hex == vector.digest, "chunk size \(chunkSize)")
        }
    }

    @Test("a copied hasher forks the state")
    func forking() {
        var prefix = SHA256()
        prefix.update("ab")
        var fork = prefix
        fork.update("c")
        prefix.update("x")
        #expect(fork.finalize().hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(prefix.finalize() == SHA256.hash("abx"))
    }

    @Test("string input hashes its UTF-8 bytes")
    func stringInput() {
        #expect(SHA256.hash("한글") == SHA256.hash(Array("한글".utf8)))
        #expect(SHA256.hash("abc") != SHA256.hash("abd"))
    }
}
