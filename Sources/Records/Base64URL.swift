/// Unpadded base64url (RFC 4648 section 5), for cursor tokens.
enum Base64URL {
    /// The 64 symbols of the URL-safe alphabet.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes `bytes` without padding.
    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let n = UInt32(bytes[index]) << 16
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
        } else if rest == 2 {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil on any other symbol, on padding, on an impossible length, or when
    /// the unused low bits of the last symbol are not zero (so every value has exactly one encoding).
    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            guard let value = value(of: byte) else { return nil }
            values.append(value)
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let n =
                UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
                | UInt32(values[index + 3])
            out.append(UInt8(n >> 16 & 0xFF))
            out.append(UInt8(n >> 8 & 0xFF))
            out.append(UInt8(n & 0xFF))
            index += 4
        }
        let rest = values.count - index
        if rest == 2 {
            guard values[index + 1] & 0x0F == 0 else { return nil }
            out.append(values[index] << 2 | values[index + 1] >> 4)
        } else if rest == 3 {
            guard values[index + 2] & 0x03 == 0 else { return nil }
            out.append(values[index] << 2 | values[index + 1] >> 4)
            out.append((values[index + 1] & 0x0F) << 4 | values[index + 2] >> 2)
        }
        return out
    }

    /// The 6-bit value of one symbol, or nil.
    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
