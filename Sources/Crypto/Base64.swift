/// Base64 (RFC 4648): the standard alphabet (section 4) and the URL- and filename-safe one (section 5),
/// with or without `=` padding, and a strict decoder that accepts only the canonical spelling.
///
/// Canonical (RFC 4648, section 3.5): no byte outside the alphabet (so no whitespace, no line breaks, no
/// symbol of the other alphabet), padding exactly as the length needs it when `padded` and none when not,
/// never a length of 1 modulo 4, and zero unused bits in the last digit, so every byte string has exactly
/// one accepted spelling per alphabet and padding choice.
public enum Base64 {
    /// Which 64 digits stand for the values 62 and 63.
    public enum Alphabet: Sendable {
        /// `+` and `/` (RFC 4648, section 4): S3's `Content-MD5` and checksum headers.
        case standard
        /// `-` and `_` (RFC 4648, section 5): JWS (RFC 7515, section 2), cursor tokens.
        case url

        /// The 64 digits in value order.
        var digits: [UInt8] { self == .standard ? Base64.standardDigits : Base64.urlDigits }
        /// The value of each byte as a digit, or 0xFF.
        var values: [UInt8] { self == .standard ? Base64.standardValues : Base64.urlValues }
    }

    /// The standard digits in value order.
    static let standardDigits: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    /// The URL-safe digits in value order.
    static let urlDigits: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Byte to value for the standard alphabet (0xFF: not a digit).
    static let standardValues = valueTable(standardDigits)
    /// Byte to value for the URL-safe alphabet (0xFF: not a digit).
    static let urlValues = valueTable(urlDigits)

    /// The inverse of `digits`, 0xFF for every other byte.
    private static func valueTable(_ digits: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, digit) in digits.enumerated() { table[Int(digit)] = UInt8(value) }
        return table
    }

    /// `bytes` in base64 with `alphabet`, `=`-padded to a multiple of 4 when `padded`.
    public static func encode(_ bytes: some Sequence<UInt8>, alphabet: Alphabet = .standard, padded: Bool = true)
        -> String
    {
        let input = Array(bytes)
        let digits = alphabet.digits
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(digits[Int(group >> 18 & 0x3f)])
            output.append(digits[Int(group >> 12 & 0x3f)])
            output.append(digits[Int(group >> 6 & 0x3f)])
            output.append(digits[Int(group & 0x3f)])
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            let group = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
            output.append(digits[Int(group >> 18 & 0x3f)])
            output.append(digits[Int(group >> 12 & 0x3f)])
            if rest == 2 { output.append(digits[Int(group >> 6 & 0x3f)]) }
            if padded { output.append(contentsOf: repeatElement(UInt8(ascii: "="), count: 3 - rest)) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The UTF-8 bytes of `text` in base64 with `alphabet`, `=`-padded when `padded`.
    public static func encode(_ text: String, alphabet: Alphabet = .standard, padded: Bool = true) -> String {
        encode(text.utf8, alphabet: alphabet, padded: padded)
    }

    /// The bytes spelled by `text`, or nil unless it is the canonical base64 of `alphabet` with padding
    /// exactly when `padded` (see the type's rules).
    public static func decode(_ text: some Collection<UInt8>, alphabet: Alphabet = .standard, padded: Bool = true)
        -> [UInt8]?
    {
        if let decoded = text.withContiguousStorageIfAvailable({ decode(bytes: $0, alphabet: alphabet, padded: padded) }
        ) {
            return decoded
        }
        return Array(text).withUnsafeBufferPointer { decode(bytes: $0, alphabet: alphabet, padded: padded) }
    }

    /// `decode` over contiguous bytes (a header's or a JSON string's digests are decoded on the event
    /// loop: no generic iterator, one table lookup per digit, the output written in place).
    private static func decode(bytes text: UnsafeBufferPointer<UInt8>, alphabet: Alphabet, padded: Bool) -> [UInt8]? {
        var canonical = true
        let bytes = [UInt8](unsafeUninitializedCapacity: text.count / 4 * 3 + 2) { output, written in
            // Each 4 digits make 3 bytes, 2 or 3 trailing digits 1 or 2: never more than the capacity.
            if let count = decodedCount(bytes: text, alphabet: alphabet, padded: padded, into: output.baseAddress) {
                written = count
            } else {
                canonical = false
                written = 0
            }
        }
        return canonical ? bytes : nil
    }

    /// The number of bytes `text` spells, or nil unless it is canonical (the type's rules); the bytes are
    /// written to `output` (room for the count) when it is given. The one walk both `decode` and
    /// `decodedCount` take, so that they accept exactly the same spellings.
    private static func decodedCount(
        bytes text: UnsafeBufferPointer<UInt8>, alphabet: Alphabet, padded: Bool,
        into output: UnsafeMutablePointer<UInt8>?
    ) -> Int? {
        var count = text.count
        if padded {
            guard count % 4 == 0 else { return nil }
            var trailing = 0
            while trailing < min(3, count) && text[count - 1 - trailing] == UInt8(ascii: "=") { trailing += 1 }
            guard trailing <= 2 else { return nil }
            count -= trailing
        }
        guard count % 4 != 1 else { return nil }
        return alphabet.values.withUnsafeBufferPointer { values -> Int? in
            // Every digit's value is below 64; 0xFF (not a digit) has the high bit, so one test per group.
            var written = 0
            var index = 0
            let whole = count - count % 4
            while index < whole {
                let a = values[Int(text[index])]
                let b = values[Int(text[index + 1])]
                let c = values[Int(text[index + 2])]
                let d = values[Int(text[index + 3])]
                guard (a | b | c | d) & 0x80 == 0 else { return nil }
                if let output {
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[written] = UInt8(truncatingIfNeeded: group >> 16)
                    output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    output[written + 2] = UInt8(truncatingIfNeeded: group)
                }
                written += 3
                index += 4
            }
            switch count - whole {
            case 2:  // 12 bits: one byte and 4 unused bits
                let a = values[Int(text[index])]
                let b = values[Int(text[index + 1])]
                guard (a | b) & 0x80 == 0, b & 0x0f == 0 else { return nil }
                output?[written] = a << 2 | b >> 4
                written += 1
            case 3:  // 18 bits: two bytes and 2 unused bits
                let a = values[Int(text[index])]
                let b = values[Int(text[index + 1])]
                let c = values[Int(text[index + 2])]
                guard (a | b | c) & 0x80 == 0, c & 0x03 == 0 else { return nil }
                output?[written] = a << 2 | b >> 4
                output?[written + 1] = b << 4 | c >> 2
                written += 2
            default:
                break
            }
            return written
        }
    }

    /// The number of bytes `text` spells, or nil unless it is the canonical base64 of `alphabet` with
    /// padding exactly when `padded`: `decode(text)?.count` without making the bytes (a declared digest
    /// is checked for its length on the event loop, and its bytes are not needed there).
    public static func decodedCount(_ text: String, alphabet: Alphabet = .standard, padded: Bool = true) -> Int? {
        // Read in place (a `var` copy for `withUTF8` would retain and release the string).
        let count = text.utf8.withContiguousStorageIfAvailable {
            decodedCount(bytes: $0, alphabet: alphabet, padded: padded, into: nil)
        }
        if let count { return count }
        return Array(text.utf8).withUnsafeBufferPointer {
            decodedCount(bytes: $0, alphabet: alphabet, padded: padded, into: nil)
        }
    }

    /// The bytes spelled by `text`, or nil unless it is the canonical base64 of `alphabet` with padding
    /// exactly when `padded`.
    public static func decode(_ text: String, alphabet: Alphabet = .standard, padded: Bool = true) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(bytes: $0, alphabet: alphabet, padded: padded) }
    }

    /// `bytes` in unpadded base64url, as JWS and cursor tokens spell them.
    public static func encodeURL(_ bytes: some Sequence<UInt8>) -> String {
        encode(bytes, alphabet: .url, padded: false)
    }

    /// The UTF-8 bytes of `text` in unpadded base64url.
    public static func encodeURL(_ text: String) -> String {
        encode(text.utf8, alphabet: .url, padded: false)
    }

    /// The bytes spelled by canonical unpadded base64url `text`, or nil.
    public static func decodeURL(_ text: some Collection<UInt8>) -> [UInt8]? {
        decode(text, alphabet: .url, padded: false)
    }

    /// The bytes spelled by canonical unpadded base64url `text`, or nil.
    public static func decodeURL(_ text: String) -> [UInt8]? {
        decode(text, alphabet: .url, padded: false)
    }
}
