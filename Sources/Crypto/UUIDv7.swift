/// Time-ordered (version 7) UUIDs of RFC 9562, as 36 lower-case characters: made from a random UUID,
/// and read back out of a text that holds one (a storage key).
///
/// Layout (RFC 9562, section 5.7): 48 bits of Unix time in milliseconds (big-endian), the version
/// nibble 7, 12 bits `rand_a`, the variant bits `10`, 62 bits `rand_b`. The first 64 bits, read as one
/// big-endian integer, order the UUIDs by their time, then by `rand_a`.
public enum UUIDv7 {
    /// `uuid` (a UUID's 36 lower-case characters, 8-4-4-4-12, with the variant `10`, as `UUIDv4` writes
    /// them) made a version-7 UUID: its first 48 bits become `millis`, the version nibble 7, `rand_a` the
    /// low 12 bits of `sequence` (nil: `uuid`'s own bits there); its other 64 bits (the variant and 62
    /// random bits in a random UUID) stay. Nil when `uuid` is not such a text or `millis` does not fit
    /// 48 bits.
    public static func stamping(_ uuid: String, millis: Int64, sequence: Int? = nil) -> String? {
        guard millis >= 0, millis < 1 << 48 else { return nil }
        var uuid = uuid
        return uuid.withUTF8 { input -> String? in
            guard input.count == 36, let base = input.baseAddress, leadingBits(at: base) != nil else { return nil }
            return String(unsafeUninitializedCapacity: 36) { output in
                _ = output.initialize(from: input)
                // The 12 time digits sit at 0..<8 and 9..<13, the version at 14, rand_a at 15..<18.
                var shift: Int64 = 44
                for position in 0..<13 where position != 8 {
                    output[position] = digit(Int((millis >> shift) & 0xf))
                    shift -= 4
                }
                output[14] = UInt8(ascii: "7")
                if let sequence {
                    for index in 0..<3 { output[15 + index] = digit((sequence >> (8 - 4 * index)) & 0xf) }
                }
                return 36
            }
        }
    }

    /// The first 64 bits (time, version, `rand_a`) of the last version-7 UUID written in `text` in the
    /// canonical lower-case form, as a big-endian integer; nil when `text` holds none.
    public static func leadingBits(ofLastIn text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count >= 36, let base = bytes.baseAddress else { return nil }
            let hyphen = UInt8(ascii: "-")
            var start = bytes.count - 36
            while start >= 0 {
                let p = base + start
                if p[23] == hyphen, p[18] == hyphen, p[13] == hyphen, p[8] == hyphen, p[14] == UInt8(ascii: "7"),
                    let value = leadingBits(at: p)
                {
                    return value
                }
                start -= 1
            }
            return nil
        }
    }

    /// The first 64 bits of the UUID in the canonical lower-case form (any version, the variant `10`)
    /// whose 36 bytes start at `p`; nil when they are no such UUID.
    private static func leadingBits(at p: UnsafePointer<UInt8>) -> Int64? {
        let hyphen = UInt8(ascii: "-")
        guard p[8] == hyphen, p[13] == hyphen, p[18] == hyphen, p[23] == hyphen else { return nil }
        var high: UInt64 = 0
        for range in [0..<8, 9..<13, 14..<18] {
            for offset in range {
                guard let value = hexValue(p[offset]) else { return nil }
                high = high << 4 | UInt64(value)
            }
        }
        for range in [19..<23, 24..<36] {
            for offset in range where hexValue(p[offset]) == nil { return nil }
        }
        guard let variant = hexValue(p[19]), variant & 0xc == 0x8 else { return nil }
        return Int64(bitPattern: high)
    }

    /// The lower-case hex digit of `value` (0...15).
    private static func digit(_ value: Int) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + UInt8(value) : UInt8(ascii: "a") + UInt8(value - 10)
    }

    /// The value of a lower-case hex digit, or nil for any other byte.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        let decimal = byte &- UInt8(ascii: "0")
        if decimal < 10 { return decimal }
        let letter = byte &- UInt8(ascii: "a")
        return letter < 6 ? letter + 10 : nil
    }
}
