import Auth
import Testing

/// Strict unpadded base64url (RFC 4648, sections 5 and 3.5; RFC 7515, section 2).
struct Base64URLTests {
    /// RFC 4648, section 10 test vectors, without their padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(plain) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    /// The two characters that differ from standard base64 (RFC 4648, section 5 table).
    @Test func urlSafeAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
        #expect(Base64URL.encode([0x3e, 0x3f]) == "Pj8")
    }

    /// Every byte value and every length up to 70 round-trip.
    @Test func everyByteAndLengthRoundTrips() {
        let bytes = (0..<256).map { UInt8($0) }
        #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        for length in 0...70 {
            let slice = Array(bytes.reversed().prefix(length))
            #expect(Base64URL.decode(Base64URL.encode(slice)) == slice, "length \(length)")
        }
    }

    @Test(arguments: [
        "Zg==", "Zm8=", "Zg=", "Zm9v====",  // padding
        "Zm+v", "Zm/v", "+w", "/w",  // standard base64 digits
        "Zm9 v", " Zm9v", "Zm9v ", "Zm9v\n", "Zm\r\n9v", "Zm\t9v",  // whitespace
        "Z", "Zm9vY", "A",  // a length of 1 modulo 4
        "Zh", "Zm9", "Zm9vYh", "Zm9vYmF",  // non-zero unused bits (canonical: Zg, Zm8, Zm9vYg, Zm9vYmE)
        "Zm9*", "Zm.v", "Zm9é", "Zm9\u{0}",  // other bytes
    ])
    func nonCanonicalOrForeignTextIsRefused(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
