import Crypto
import Testing

/// Lower-case hexadecimal encoding and strict decoding (RFC 4648 section 8, "base16", in lower case).
struct HexTests {
    /// Byte strings and their hexadecimal spelling: RFC 4648 section 10's base16 vectors, lower-cased,
    /// plus the boundary bytes.
    static let table: [([UInt8], String)] = [
        ([], ""),
        (Array("f".utf8), "66"),
        (Array("fo".utf8), "666f"),
        (Array("foo".utf8), "666f6f"),
        (Array("foobar".utf8), "666f6f626172"),
        ([0x00, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xfe, 0xff], "00010f107f80feff"),
    ]

    @Test("encode is lower case", arguments: table)
    func encode(bytes: [UInt8], hex: String) {
        #expect(Hex.encode(bytes) == hex)
        var appended: [UInt8] = Array("x=".utf8)
        bytes.withUnsafeBytes { Hex.append($0, to: &appended) }
        #expect(String(decoding: appended, as: UTF8.self) == "x=" + hex)
    }

    @Test("decode accepts either case", arguments: table)
    func decode(bytes: [UInt8], hex: String) {
        #expect(Hex.decode(hex) == bytes)
        #expect(Hex.decode(hex.uppercased()) == bytes)
    }

    @Test("decode refuses odd lengths and non-digits", arguments: ["0", "abc", "0g", "zz", " 00", "00 ", "+1"])
    func decodeRefuses(text: String) {
        #expect(Hex.decode(text) == nil)
    }
}
