import Testing

@testable import App

/// The strict base64 of declared digests (Content-MD5, x-amz-checksum-sha256).
@Suite struct Base64DigestTests {
    @Test(arguments: [
        // RFC 4648, section 10 (test vectors)
        ("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg==", "foob"), ("Zm9vYmE=", "fooba"),
        ("Zm9vYmFy", "foobar"),
    ])
    func rfc4648Vectors(encoded: String, decoded: String) {
        #expect(Base64Digest.decode(encoded) == Array(decoded.utf8))
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zm9", "Z===", "====", "Zg=a", "Z=g=", "Zh==", "Zm9=", "Zm-v", "Zm_v", "Zm9v\n", " Zm9v",
        "Zm9vYg=\u{3d}=",
    ])
    func malformedOrNonCanonicalIsNil(text: String) {
        #expect(Base64Digest.decode(text) == nil, "\(text)")
    }

    @Test func digestsHaveTheirSizes() {
        // MD5("") and SHA-256("") (Python's hashlib, base64-encoded).
        #expect(Base64Digest.isDigest("1B2M2Y8AsgTpgAmY7PhCfg==", bytes: 16))
        #expect(Base64Digest.isDigest("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", bytes: 32))
        #expect(!Base64Digest.isDigest("1B2M2Y8AsgTpgAmY7PhCfg==", bytes: 32))
        #expect(!Base64Digest.isDigest("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", bytes: 16))
    }
}
