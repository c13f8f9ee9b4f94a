import Testing

@testable import JSON

@Suite struct ByteScanTests {
    /// Every byte value at every position of a word of plain letters: the word tests agree with
    /// the byte-by-byte definition (RFC 8259, section 7: `"`, `\` and below 0x20 must be escaped).
    @Test func wordTestsAgreeWithTheByteDefinition() {
        for value in 0...255 {
            let byte = UInt8(value)
            let escapeFree = byte >= 0x20 && byte != 0x22 && byte != 0x5C
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = byte
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(ByteScan.isEscapeFree(word) == escapeFree, "byte \(value) at \(position)")
                #expect(ByteScan.isPlainASCII(word) == (escapeFree && byte < 0x80), "byte \(value) at \(position)")
            }
        }
    }

    /// Neighbouring bytes must not hide or invent a match (borrows between bytes).
    @Test func neighboursDoNotInterfere() {
        let fillers: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xFF]
        for first in fillers {
            for second in fillers {
                let bytes: [UInt8] = [first, second, 0x61, 0x61, second, first, 0x61, second]
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                let escapeFree = bytes.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }
                #expect(ByteScan.isEscapeFree(word) == escapeFree, "\(bytes)")
                #expect(ByteScan.isPlainASCII(word) == (escapeFree && bytes.allSatisfy { $0 < 0x80 }), "\(bytes)")
            }
        }
    }

    /// Whether a parser must look at `byte` inside a string.
    static func isSpecial(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C || byte >= 0x80 }

    /// `firstSpecialByte` finds the first byte in memory order that needs a look: every byte value at
    /// every position among plain letters, then every pair of tricky bytes at two positions (a match
    /// with another, or a non-match, before or after it: borrows flag only bytes after a match).
    @Test func firstSpecialByteIsTheFirstInMemoryOrder() {
        func first(_ bytes: [UInt8]) -> Int {
            ByteScan.firstSpecialByte(bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        }
        #expect(first(Array("abcdefgh".utf8)) == 8)
        for value in 0...255 {
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = UInt8(value)
                #expect(first(bytes) == (Self.isSpecial(UInt8(value)) ? position : 8), "byte \(value) at \(position)")
            }
        }
        let tricky: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xC3, 0xFF]
        for a in tricky {
            for b in tricky {
                for (i, j) in [(0, 1), (0, 7), (3, 4), (6, 7), (1, 5)] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                    bytes[i] = a
                    bytes[j] = b
                    let expected = bytes.firstIndex(where: Self.isSpecial) ?? 8
                    #expect(first(bytes) == expected, "\(bytes)")
                }
            }
        }
    }
}
