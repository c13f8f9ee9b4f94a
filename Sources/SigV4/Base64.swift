/// Standard base64 (RFC 4648 section 4, with `=` padding): the encoding of a POST policy. Pure.
enum Base64 {
    /// The 64 digits.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64.
    static func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(group >> UInt32(shift) & 0x3f)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var group = UInt32(bytes[index]) << 16
            if rest == 2 { group |= UInt32(bytes[index + 1]) << 8 }
            output.append(alphabet[Int(group >> 18 & 0x3f)])
            output.append(alphabet[Int(group >> 12 & 0x3f)])
            output.append(rest == 2 ? alphabet[Int(group >> 6 & 0x3f)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }
}
