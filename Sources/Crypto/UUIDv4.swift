/// Random (version 4) UUIDs of RFC 9562, as 36 lower-case characters.
public enum UUIDv4 {
    /// A fresh random UUID, e.g. `0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a`.
    public static func random() throws(CryptoError) -> String {
        format(randomBytes: try SecureRandom.bytes(count: 16))
    }

    /// The UUID made from 16 random bytes: the version nibble is set to 4 and the variant bits to
    /// `10`, then it is written 8-4-4-4-12 in lower-case hexadecimal.
    public static func format(randomBytes: [UInt8]) -> String {
        precondition(randomBytes.count == 16, "a UUID is made of 16 bytes")
        return randomBytes.withUnsafeBytes { format(randomBytes: $0) }
    }

    /// `format(randomBytes:)` over 16 bytes in place (the pool's path: no array is made).
    public static func format(randomBytes bytes: UnsafeRawBufferPointer) -> String {
        precondition(bytes.count == 16, "a UUID is made of 16 bytes")
        return String(unsafeUninitializedCapacity: 36) { output in
            Hex.digits.withUnsafeBufferPointer { digits in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    var byte = bytes[index]
                    if index == 6 { byte = (byte & 0x0f) | 0x40 }
                    if index == 8 { byte = (byte & 0x3f) | 0x80 }
                    output[position] = digits[Int(byte >> 4)]
                    output[position + 1] = digits[Int(byte & 0x0f)]
                    position += 2
                }
                return position
            }
        }
    }
}
