import Crypto
import Testing

/// Conversions between JOSE's r || s and DER (RFC 7518, section 3.4; RFC 3279, section 2.2.3).
struct ECDSASignatureTests {
    /// Hand-encoded DER for small r and s: leading zeros dropped, a zero byte added before a set top bit.
    @Test(arguments: [
        (
            [UInt8](repeating: 0, count: 31) + [0x01] + [UInt8](repeating: 0, count: 31) + [0x7f],
            [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x7f] as [UInt8]
        ),
        (
            [UInt8](repeating: 0, count: 31) + [0x80] + [UInt8](repeating: 0, count: 30) + [0x01, 0x00],
            [0x30, 0x08, 0x02, 0x02, 0x00, 0x80, 0x02, 0x02, 0x01, 0x00] as [UInt8]
        ),
    ])
    func smallValues(raw: [UInt8], der: [UInt8]) throws {
        #expect(raw.withUnsafeBytes { ECDSASignature.der(fromRaw: $0) } == der)
        #expect(ECDSASignature.raw(fromDER: der) == raw)
    }

    /// The RFC 7515, appendix A.3 signature survives a round trip; full-width values take 0x21 bytes.
    @Test func rfc7515SignatureRoundTrips() throws {
        let raw = base64URLDecoded(RFC7515Vectors.es256Signature)
        let der = try #require(raw.withUnsafeBytes { ECDSASignature.der(fromRaw: $0) })
        #expect(der[0] == 0x30)
        #expect(ECDSASignature.raw(fromDER: der) == raw)
        let allOnes = [UInt8](repeating: 0xff, count: 64)
        let wide = try #require(allOnes.withUnsafeBytes { ECDSASignature.der(fromRaw: $0) })
        #expect(wide.count == 2 + 2 * (2 + 33))
    }

    @Test func wrongShapesAreRefused() {
        for length in [0, 1, 63, 65, 96] {
            #expect([UInt8](repeating: 1, count: length).withUnsafeBytes { ECDSASignature.der(fromRaw: $0) } == nil)
        }
        #expect(ECDSASignature.raw(fromDER: []) == nil)
        // A trailing byte after the sequence.
        #expect(ECDSASignature.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x7f, 0x00]) == nil)
        // r of 33 significant bytes does not fit P-256's 32.
        let long = [0x30, 0x27, 0x02, 0x22, 0x00] + [UInt8](repeating: 0xff, count: 33) + [0x02, 0x01, 0x01]
        #expect(ECDSASignature.raw(fromDER: long) == nil)
    }
}
