import Testing

@testable import App

/// The declared digests (Content-MD5, x-amz-checksum-sha256); the codec itself is Crypto's `Base64`
/// (CryptoTests' `Base64Tests` hold the RFC 4648 vectors and the non-canonical spellings).
@Suite struct Base64DigestTests {
    @Test func digestsHaveTheirSizes() {
        // MD5("") and SHA-256("") (Python's hashlib, base64-encoded).
        #expect(Base64Digest.isDigest("1B2M2Y8AsgTpgAmY7PhCfg==", bytes: 16))
        #expect(Base64Digest.isDigest("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", bytes: 32))
        #expect(!Base64Digest.isDigest("1B2M2Y8AsgTpgAmY7PhCfg==", bytes: 32))
        #expect(!Base64Digest.isDigest("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", bytes: 16))
    }

    @Test(arguments: [
        "1B2M2Y8AsgTpgAmY7PhCfg", "1B2M2Y8AsgTpgAmY7PhCfh==", "1B2M2Y8AsgTpgAmY7PhCfg==\n",
        "1B2M2Y8AsgTpgAmY7PhCfg=a", "1B2M2Y8AsgTpgAmY7PhC-g==",
    ])
    func nonCanonicalIsNoDigest(text: String) {
        #expect(!Base64Digest.isDigest(text, bytes: 16), "\(text)")
    }
}
