import Crypto
import Testing

/// Base64 in both alphabets, padded and not, with strict canonical decoding (RFC 4648, sections 3.5, 4,
/// 5 and 10; RFC 7515, section 2 for unpadded base64url).
struct Base64Tests {
    /// RFC 4648, section 10 test vectors.
    static let rfc4648: [(plain: String, encoded: String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    /// The vectors as given: standard alphabet, padded (S3's `Content-MD5` form).
    @Test func rfc4648VectorsPadded() {
        for (plain, encoded) in Self.rfc4648 {
            #expect(Base64.encode(plain) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8), "\(encoded)")
            #expect(Base64.encode(plain, alphabet: .url) == encoded)
            #expect(Base64.decode(encoded, alphabet: .url) == Array(plain.utf8), "\(encoded)")
        }
    }

    /// The vectors without their padding (JWS, cursor tokens).
    @Test func rfc4648VectorsUnpadded() {
        for (plain, padded) in Self.rfc4648 {
            let encoded = String(padded.filter { $0 != "=" })
            #expect(Base64.encodeURL(plain) == encoded)
            #expect(Base64.decodeURL(encoded) == Array(plain.utf8), "\(encoded)")
            #expect(Base64.encode(plain, padded: false) == encoded)
            #expect(Base64.decode(encoded, padded: false) == Array(plain.utf8), "\(encoded)")
        }
    }

    /// The two digits where the alphabets differ (RFC 4648, section 4 and 5 tables).
    @Test func alphabetsDifferInTwoDigits() {
        #expect(Base64.encodeURL([0xfb, 0xff]) == "-_8")
        #expect(Base64.decodeURL("-_8") == [0xfb, 0xff])
        #expect(Base64.encode([0xfb, 0xff]) == "+/8=")
        #expect(Base64.decode("+/8=") == [0xfb, 0xff])
        #expect(Base64.decode("+/8=", alphabet: .url) == nil)
        #expect(Base64.decode("-_8=") == nil)
    }

    /// A 16-byte MD5 digest is 24 characters with two `=`; a 32-byte SHA-256 one is 44 with one.
    @Test func digestLengths() {
        let md5 = [UInt8](repeating: 0xA5, count: 16)
        let sha256 = [UInt8](repeating: 0x5A, count: 32)
        #expect(Base64.encode(md5).utf8.count == 24)
        #expect(Base64.encode(md5).hasSuffix("=="))
        #expect(Base64.encode(sha256).utf8.count == 44)
        #expect(Base64.decode(Base64.encode(sha256)) == sha256)
    }

    /// Every byte value and every length up to 70 round-trip in all four forms.
    @Test(arguments: [(Base64.Alphabet.standard, true), (.standard, false), (.url, true), (.url, false)])
    func everyByteAndLengthRoundTrips(alphabet: Base64.Alphabet, padded: Bool) {
        let bytes = (0..<256).map { UInt8($0) }
        #expect(
            Base64.decode(Base64.encode(bytes, alphabet: alphabet, padded: padded), alphabet: alphabet, padded: padded)
                == bytes)
        for length in 0...70 {
            let slice = Array(bytes.reversed().prefix(length))
            let encoded = Base64.encode(slice, alphabet: alphabet, padded: padded)
            #expect(Base64.decode(encoded, alphabet: alphabet, padded: padded) == slice, "length \(length)")
            #expect(!padded || encoded.utf8.count % 4 == 0)
        }
    }

    /// Non-canonical unpadded base64url: each has a canonical spelling, or none.
    @Test(arguments: [
        "Zg==", "Zm8=", "Zg=", "Zm9v====",  // padding
        "Zm+v", "Zm/v", "+w", "/w",  // standard base64 digits
        "Zm9 v", " Zm9v", "Zm9v ", "Zm9v\n", "Zm\r\n9v", "Zm\t9v",  // whitespace
        "Z", "Zm9vY", "A",  // a length of 1 modulo 4
        "Zh", "Zm9", "Zm9vYh", "Zm9vYmF",  // non-zero unused bits (canonical: Zg, Zm8, Zm9vYg, Zm9vYmE)
        "Zm9*", "Zm.v", "Zm9é", "Zm9\u{0}",  // other bytes
    ])
    func nonCanonicalUnpaddedURLIsRefused(text: String) {
        #expect(Base64.decodeURL(text) == nil)
        #expect(Base64.decodedCount(text, alphabet: .url, padded: false) == nil)
    }

    /// Non-canonical padded standard base64 (the rules of S3's digest headers).
    @Test(arguments: [
        "Zg", "Zm8", "Zg=", "Zm9vYg", "Zm9vYmE",  // padding missing or short
        "Zg===", "Zm8==", "Zm9v====", "Zm9v=", "====", "=", "==", "A===",  // too much padding
        "Zg==Zg==", "Zm8=Zm9v", "Z=g=", "=Zg=",  // padding before the end
        "Zh==", "Zm9=", "Zm9vYh==", "Zm9vYmF=",  // non-zero unused bits (canonical: Zg==, Zm8=, ...)
        "Zm-v", "Zm_v", "-w==", "_w==",  // URL-safe digits
        "Zm9 v", " Zm9v", "Zm9v\n", "Zm9v\r\n", "Zg==\n",  // whitespace
        "Zm9*", "Zm9é", "Zm9\u{0}",  // other bytes
    ])
    func nonCanonicalPaddedStandardIsRefused(text: String) {
        #expect(Base64.decode(text) == nil)
        #expect(Base64.decodedCount(text) == nil)
    }

    /// Padding where none belongs is refused in the unpadded standard form too.
    @Test func unpaddedStandardRefusesPadding() {
        #expect(Base64.decode("Zg==", padded: false) == nil)
        #expect(Base64.decode("Zg", padded: false) == [0x66])
    }

    /// `decodedCount` counts the bytes of a declared digest without making them: 32 for a SHA-256, 16
    /// for an MD5, the length of another digest, nil for hex with a character outside base64, a wrong
    /// length or padding, or unused bits set.
    @Test func decodedCountOfDigests() {
        let sha256 = Base64.encode([UInt8](repeating: 0x5A, count: 32))
        let md5 = Base64.encode([UInt8](repeating: 0xA5, count: 16))
        #expect(Base64.decodedCount(sha256) == 32)
        #expect(Base64.decodedCount(md5) == 16)
        #expect(Base64.decodedCount("LXEWQrcmsEQBYnyp+6wy9chTD7GQPMTbAiWHF5IaSIE=") == 32)
        #expect(Base64.decodedCount("ndTkYSaMgDT1yFZOFVxnpg==") == 16)
        // Hex of 16 bytes is 32 base64 digits (24 bytes); with a digit past f it is still base64.
        #expect(Base64.decodedCount("9dd4e461268c8034f5c8564e155c67a6") == 24)
        #expect(Base64.decodedCount(String(sha256.dropLast())) == nil, "a length that is not a multiple of 4")
        #expect(Base64.decodedCount(String(md5.dropLast(2))) == nil, "the padding left out")
        #expect(Base64.decodedCount(String(md5.dropFirst(4))) == 13)
        #expect(Base64.decodedCount("ndTkYSaMgDT1yFZOFVxnpg=!") == nil)
        #expect(Base64.decodedCount("ndTkYSaMgDT1yFZOFVxnph==") == nil, "unused bits set")
        #expect(Base64.decodedCount("ndTkYSaM gDT1yFZOFVxnpg=") == nil)
        #expect(Base64.decodedCount("") == 0)
    }

    /// A decoder written from the RFC's definition, as an oracle: the digits' bits in order, whole bytes
    /// kept; the text is canonical when encoding those bytes spells it again (`encode` is checked against
    /// the RFC's vectors above).
    static func reference(_ text: String, alphabet: Base64.Alphabet, padded: Bool) -> [UInt8]? {
        let digits = Array(
            (alphabet == .standard
                ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_").utf8)
        var bits: [Bool] = []
        for byte in text.utf8.reversed().drop(while: { $0 == UInt8(ascii: "=") }).reversed() {
            guard let value = digits.firstIndex(of: byte) else { return nil }
            for shift in (0..<6).reversed() { bits.append(value >> shift & 1 == 1) }
        }
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: bits.count - 7, by: 8) {
            bytes.append(bits[start..<start + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) })
        }
        return Base64.encode(bytes, alphabet: alphabet, padded: padded) == text ? bytes : nil
    }

    /// `decode` and `decodedCount` accept exactly what the reference accepts, and make or count its
    /// bytes, in all four forms: every string of up to 5 characters over digits of both alphabets (a
    /// last digit whose unused bits are zero and one whose are not), padding, a space and a non-ASCII
    /// character.
    @Test(arguments: [(Base64.Alphabet.standard, true), (.standard, false), (.url, true), (.url, false)])
    func decodeAndCountAgreeWithReference(alphabet: Base64.Alphabet, padded: Bool) {
        let symbols = ["A", "Q", "w", "+", "/", "-", "_", "=", " ", "é"]
        var level = [""]
        var checked = 0
        var canonical = 0
        for length in 0...5 {
            for text in level {
                let expected = Self.reference(text, alphabet: alphabet, padded: padded)
                let decoded = Base64.decode(text, alphabet: alphabet, padded: padded)
                let count = Base64.decodedCount(text, alphabet: alphabet, padded: padded)
                if decoded != expected || count != expected?.count {
                    Issue.record(
                        "\(text): expected \(String(describing: expected)), decoded \(String(describing: decoded)), counted \(String(describing: count))"
                    )
                }
                checked += 1
                if expected != nil { canonical += 1 }
            }
            if length < 5 { level = level.flatMap { text in symbols.map { text + $0 } } }
        }
        #expect(checked == 111_111)
        #expect(canonical > 100, "the strings include canonical ones (\(canonical))")
    }
}
