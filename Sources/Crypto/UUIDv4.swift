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
        var bytes = randomBytes
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return String(unsafeUninitializedCapacity: 36) { output in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    output[position] = UInt8(ascii: "-")
                    position += 1
                }
                output[position] = Hex.digits[Int(byte >> 4)]
                output[position + 1] = Hex.digits[Int(byte & 0x0f)]
                position += 2
            }
            return position
        }
    }
}
