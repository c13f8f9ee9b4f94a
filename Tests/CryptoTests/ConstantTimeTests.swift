import Crypto
import Testing

/// Constant-time comparison (`CRYPTO_memcmp`): its answers; timing is OpenSSL's property.
struct ConstantTimeTests {
    @Test("equal and unequal byte strings")
    func bytes() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [0, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([], [0]))
        #expect(ConstantTime.equals([], []))
    }

    @Test("strings compare their UTF-8 bytes")
    func strings() {
        let signature = "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        #expect(ConstantTime.equals(signature, String(signature)))
        #expect(!ConstantTime.equals(signature, signature.uppercased()))
        #expect(!ConstantTime.equals(signature, String(signature.dropLast()) + "5"))
        #expect(ConstantTime.equals("é", "\u{E9}"))
        #expect(!ConstantTime.equals("é", "e\u{301}"))
    }

    @Test("digest equality uses the same comparison")
    func digests() {
        #expect(SHA256.hash("abc") == SHA256.hash("abc"))
        #expect(SHA256.hash("abc") != SHA256.hash("abd"))
        #expect(SHA256Digest(bytes: SHA256.hash("abc").bytes) == SHA256.hash("abc"))
        #expect(SHA256Digest(bytes: [1, 2, 3]) == nil)
    }
}
