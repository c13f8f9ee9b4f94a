/// Digests a client declares for its upload, as S3 takes them: standard base64 (RFC 4648, section 4,
/// with padding) of the raw digest bytes. Pure.
enum Base64Digest {
    /// The value of each base64 character, or nil.
    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }

    /// The bytes `text` encodes, or nil unless it is canonical padded standard base64: a multiple of 4
    /// characters, `=` only as the last one or two, and no bits set past the data (so one digest has
    /// exactly one spelling, the one S3 compares).
    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var padding = 0
        if chars.last == UInt8(ascii: "=") { padding += 1 }
        if chars.count >= 2 && chars[chars.count - 2] == UInt8(ascii: "=") { padding += 1 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chars.count / 4 * 3)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in chars[..<(chars.count - padding)] {
            guard let v = value(c) else { return nil }
            accumulator = accumulator << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // What is left over must be the zero bits that pad the last character.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return bytes
    }

    /// Whether `text` is the base64 of exactly `count` bytes.
    static func isDigest(_ text: String, bytes count: Int) -> Bool {
        decode(text)?.count == count
    }
}
