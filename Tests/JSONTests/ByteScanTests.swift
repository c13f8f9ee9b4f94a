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
}
