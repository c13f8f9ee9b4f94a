/// Reads a PNG's size from its IHDR chunk (PNG specification, sections 5.2-5.3 and 11.2.2).
enum PNGHeader {
    /// Bytes from the start of the file to the end of IHDR: signature, length, type, 13 bytes, CRC.
    static let headerEnd = 33

    /// The size in IHDR, which must be the first chunk, 13 bytes long, with a matching CRC.
    ///
    /// Width and height are 1...2^31-1; bit depth and colour type must be one of the allowed pairs
    /// (0: 1, 2, 4, 8, 16; 2, 4, 6: 8, 16; 3: 1, 2, 4, 8); compression and filter method 0; interlace 0 or 1.
    static func size(_ reader: inout ProbeReader) throws(ProbeStop) -> ImageSize {
        try reader.need(0, headerEnd)
        guard try reader.be32(12) == FourCC.ihdr else { throw .malformed(.firstChunkNotHeader) }
        guard try reader.be32(8) == 13 else { throw .malformed(.headerLength) }
        let crc = try reader.be32(29)
        guard CRC32.checksum(UnsafeRawBufferPointer(rebasing: reader.bytes[12..<29])) == crc else {
            throw .malformed(.checksum)
        }
        let width = try reader.be32(16)
        let height = try reader.be32(20)
        guard width > 0, height > 0 else { throw .malformed(.zeroDimension) }
        guard width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else { throw .malformed(.dimensionTooLarge) }
        let depth = try reader.u8(24)
        let colour = try reader.u8(25)
        let depthOK: Bool
        switch colour {
        case 0: depthOK = [1, 2, 4, 8, 16].contains(depth)
        case 2, 4, 6: depthOK = depth == 8 || depth == 16
        case 3: depthOK = [1, 2, 4, 8].contains(depth)
        default: depthOK = false
        }
        guard depthOK, try reader.u8(26) == 0, try reader.u8(27) == 0, try reader.u8(28) <= 1 else {
            throw .malformed(.headerField)
        }
        return ImageSize(width: Int(width), height: Int(height))
    }
}
