/// Lower-case hexadecimal encoding (as SigV4 and digests want it) and a strict decoder.
public enum Hex {
    /// The sixteen lower-case digits.
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `bytes` as lower-case hexadecimal.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { output in
            var position = 0
            for byte in bytes {
                output[position] = digits[Int(byte >> 4)]
                output[position + 1] = digits[Int(byte & 0x0f)]
                position += 2
            }
            return position
        }
    }

    /// `bytes` as lower-case hexadecimal.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let encoded: String? = bytes.withContiguousStorageIfAvailable { encode(UnsafeRawBufferPointer($0)) }
        return encoded ?? Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// Appends `bytes` as lower-case hexadecimal to `output`.
    public static func append(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + bytes.count * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0f)])
        }
    }

    /// The bytes spelled by `text` (upper or lower case digits, even length), or nil.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = value(of: characters[index]), let low = value(of: characters[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// The value of one hexadecimal digit, or nil.
    private static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
