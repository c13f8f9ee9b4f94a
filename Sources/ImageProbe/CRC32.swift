/// The CRC-32 of ISO 3309 / ITU-T V.42 that PNG chunks carry (reflected polynomial 0xEDB88320).
enum CRC32 {
    /// The CRC of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}
