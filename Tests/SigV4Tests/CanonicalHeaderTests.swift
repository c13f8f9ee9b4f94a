import Testing

@testable import SigV4

/// A header as SigV4 signs it: names checked and lower-cased, values trimmed and collapsed, and where
/// each name goes relative to `host`, read over the bytes.
struct CanonicalHeaderTests {
    /// `sortsBeforeHost` is `String`'s order (byte order for ASCII names) against `host`, at and around it.
    @Test(arguments: [
        "a", "content-md5", "content-type", "h", "ho", "hos", "host", "hosta", "hosu", "hot", "hp", "i",
        "if-none-match", "range", "x-amz-checksum-sha256", "x-amz-sdk-checksum-algorithm", "g", "hn", "-", "0", "",
    ])
    func sortsBeforeHostIsStringOrder(name: String) {
        #expect(CanonicalHeader.sortsBeforeHost(name) == (name < "host"))
        #expect(CanonicalHeader(trustedName: name, value: "v").sortsBeforeHost == (name < "host"))
    }

    /// Names: upper case lowered, every allowed byte kept, any other byte refused with its reason.
    @Test func namesAreCheckedAndLowered() throws {
        #expect(try CanonicalHeader(name: "Content-MD5", value: "x").name == "content-md5")
        #expect(try CanonicalHeader(name: "x-meta_a.b-0", value: "x").name == "x-meta_a.b-0")
        for bad in ["content type", "content:type", "contént-type", "content-type\r\n", "a/b"] {
            #expect(
                throws: SigV4Error.invalidHeader(name: bad, reason: "a header name is made of a-z, 0-9, -, _ and .")
            ) { try CanonicalHeader(name: bad, value: "x") }
        }
        #expect(throws: SigV4Error.invalidHeader(name: "", reason: "empty name")) {
            try CanonicalHeader(name: "", value: "x")
        }
        #expect(throws: SigV4Error.invalidHeader(name: "HOST", reason: "set by the signer itself")) {
            try CanonicalHeader(name: "HOST", value: "x")
        }
    }

    /// Values: already normal ones kept as given, others trimmed with inner runs of spaces and tabs made
    /// one space; a control or non-ASCII byte refused.
    @Test func valuesAreNormalised() throws {
        let digest = "ndTkYSaMgDT1yFZOFVxnpg=="
        #expect(try CanonicalHeader(name: "content-md5", value: digest).value == digest)
        #expect(try CanonicalHeader(name: "a", value: "").value == "")
        #expect(try CanonicalHeader(name: "a", value: " x ").value == "x")
        #expect(try CanonicalHeader(name: "a", value: "x\t\ty  z").value == "x y z")
        #expect(try CanonicalHeader(name: "a", value: "\t").value == "")
        #expect(
            try CanonicalHeader(name: "a", value: String(repeating: "long value ", count: 8)).value
                == String(repeating: "long value ", count: 8).dropLast())
        for bad in ["x\ny", "x\r", "x\u{0}", "imäge/jpeg", "x\u{7f}"] {
            #expect(throws: SigV4Error.invalidHeader(name: "a", reason: "values are visible ASCII and spaces only")) {
                try CanonicalHeader(name: "a", value: bad)
            }
        }
    }

    /// The eight-byte test agrees with the byte definition (0x21 to 0x7E) for every byte value at every
    /// position, and next to bytes that borrow or carry.
    @Test func visibleWordsAreVisibleBytes() {
        func word(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } }
        for value in 0...255 {
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = UInt8(value)
                #expect(
                    CanonicalHeader.isVisible(word(bytes)) == (value >= 0x21 && value <= 0x7E),
                    "\(value) at \(position)")
            }
        }
        let tricky: [UInt8] = [0x00, 0x09, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xFE, 0xFF]
        for a in tricky {
            for b in tricky {
                let bytes: [UInt8] = [a, b, 0x41, b, a, 0x7E, b, 0x21]
                #expect(CanonicalHeader.isVisible(word(bytes)) == bytes.allSatisfy { $0 >= 0x21 && $0 <= 0x7E })
            }
        }
    }

    /// Long values (read eight bytes at a time) with a space, a tab or a refused byte at every position.
    @Test func longValuesAtEveryPosition() throws {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef".utf8)
        for length in 1...32 {
            let plain = String(decoding: letters[..<length], as: UTF8.self)
            #expect(try CanonicalHeader(name: "a", value: plain).value == plain)
            for position in 0..<length {
                var spaced = Array(letters[..<length])
                spaced[position] = UInt8(ascii: " ")
                let expected = String(decoding: spaced, as: UTF8.self).trimmingSpaces()
                #expect(
                    try CanonicalHeader(name: "a", value: String(decoding: spaced, as: UTF8.self)).value == expected)
                spaced[position] = UInt8(ascii: "\t")
                #expect(
                    try CanonicalHeader(name: "a", value: String(decoding: spaced, as: UTF8.self)).value == expected)
                for bad: UInt8 in [0x00, 0x0A, 0x7F] {
                    var refused = Array(letters[..<length])
                    refused[position] = bad
                    #expect(throws: SigV4Error.self) {
                        try CanonicalHeader(name: "a", value: String(decoding: refused, as: UTF8.self))
                    }
                }
                var accented = Array(letters[..<length])
                accented.replaceSubrange(position...position, with: Array("é".utf8))
                #expect(throws: SigV4Error.self) {
                    try CanonicalHeader(name: "a", value: String(decoding: accented, as: UTF8.self))
                }
            }
        }
    }

    /// Duplicated names are refused, whatever their case; distinct names of the same length are not.
    @Test func duplicatesAreRefused() throws {
        #expect(throws: SigV4Error.invalidHeader(name: "Content-Type", reason: "given twice")) {
            try CanonicalHeader.canonicalize([("content-type", "a"), ("Content-Type", "b")])
        }
        let sorted = try CanonicalHeader.canonicalize([("content-typf", "a"), ("content-type", "b"), ("a", "c")])
        #expect(sorted.map(\.name) == ["a", "content-type", "content-typf"])
    }
}

extension String {
    /// The string without leading and trailing spaces (one space inside stays: the values above hold one).
    fileprivate func trimmingSpaces() -> String {
        String(self.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
