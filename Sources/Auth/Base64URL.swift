/// The URL- and filename-safe base64 alphabet without padding (RFC 4648, section 5), as JWS
/// uses it (RFC 7515, section 2), with a strict decoder.
public enum Base64URL {
    /// The 64 digits in value order.
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The value of each byte as a digit, or 0xFF for a byte outside the alphabet.
    static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, digit) in alphabet.enumerated() { table[Int(digit)] = UInt8(value) }
        return table
    }()

    /// `bytes` in base64url without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(group >> UInt32(shift) & 0x3f)]) }
            index += 3
        }
        switch input.count - index {
        case 1:
            let group = UInt32(input[index]) << 16
            output.append(alphabet[Int(group >> 18 & 0x3f)])
            output.append(alphabet[Int(group >> 12 & 0x3f)])
        case 2:
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 0x3f)])
            output.append(alphabet[Int(group >> 12 & 0x3f)])
            output.append(alphabet[Int(group >> 6 & 0x3f)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `text` in base64url without padding.
    public static func encode(_ text: String) -> String {
        encode(text.utf8)
    }

    /// The bytes spelled by `text`, or nil unless it is canonical unpadded base64url.
    ///
    /// Refused: any byte outside `A-Z a-z 0-9 - _` (so `+`, `/`, `=` padding and whitespace), a
    /// length of 1 modulo 4 (no whole byte), and non-zero unused bits in the last digit
    /// (RFC 4648, section 3.5), so every byte string has exactly one accepted spelling.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let count = text.count
        guard count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(count * 3 / 4)
        var group: UInt32 = 0
        var digits = 0
        for character in text {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            digits += 1
            if digits == 4 {
                output.append(UInt8(truncatingIfNeeded: group >> 16))
                output.append(UInt8(truncatingIfNeeded: group >> 8))
                output.append(UInt8(truncatingIfNeeded: group))
                group = 0
                digits = 0
            }
        }
        switch digits {
        case 2:  // 12 bits: one byte and 4 unused bits
            guard group & 0x0f == 0 else { return nil }
            output.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3:  // 18 bits: two bytes and 2 unused bits
            guard group & 0x03 == 0 else { return nil }
            output.append(UInt8(truncatingIfNeeded: group >> 10))
            output.append(UInt8(truncatingIfNeeded: group >> 2))
        default:
            break
        }
        return output
    }

    /// The bytes spelled by `text`, or nil unless it is canonical unpadded base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        decode(text.utf8)
    }
}
