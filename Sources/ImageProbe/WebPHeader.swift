/// Reads a WebP's size from its first chunk (WebP container specification; RFC 6386 section 9.1 for VP8;
/// the WebP lossless bitstream specification, section 3, for VP8L).
enum WebPHeader {
    /// The size in the first chunk after `RIFF` size `WEBP`.
    ///
    /// The RIFF size (file length minus 8) must hold at least one chunk header, be at most 2^32-10,
    /// and fit in the object: a shorter object is truncated. The first chunk must fit in the RIFF
    /// payload and be one of:
    /// - `VP8 `: a key frame (frame tag bit 0 clear) that is shown, version 0-3, first partition within
    ///   the chunk, start code 9D 01 2A, then 14-bit width and height (the top two bits are scaling);
    /// - `VP8L`: signature 0x2F, then 14 bits of width-1, 14 of height-1, an alpha bit and a 3-bit
    ///   version that must be 0;
    /// - `VP8X`: ten bytes: flags, three reserved, 24-bit canvas width-1 and height-1, with
    ///   width × height at most 2^32-1.
    static func size(_ reader: inout ProbeReader) throws(ProbeStop) -> ImageSize {
        let riffSize = Int(try reader.le32(4))
        guard riffSize >= 12, riffSize <= 0xFFFF_FFFF - 9 else { throw .malformed(.riffSize) }
        try reader.within(0, 8 + riffSize)
        let chunk = try reader.be32(12)
        let chunkSize = Int(try reader.le32(16))
        guard chunkSize <= riffSize - 12 else { throw .malformed(.chunkSize) }
        switch chunk {
        case FourCC.vp8:
            guard chunkSize >= 10 else { throw .malformed(.chunkSize) }
            try reader.need(20, 10)
            let tag = try reader.le24(20)
            guard tag & 1 == 0 else { throw .malformed(.notKeyFrame) }
            guard (tag >> 1) & 7 <= 3 else { throw .malformed(.unsupportedVersion) }
            guard (tag >> 4) & 1 == 1 else { throw .malformed(.hiddenFrame) }
            guard Int(tag >> 5) <= chunkSize - 10 else { throw .malformed(.chunkSize) }
            guard try reader.u8(23) == 0x9D, try reader.u8(24) == 0x01, try reader.u8(25) == 0x2A else {
                throw .malformed(.startCode)
            }
            let width = Int(try reader.le16(26) & 0x3FFF)
            let height = Int(try reader.le16(28) & 0x3FFF)
            guard width > 0, height > 0 else { throw .malformed(.zeroDimension) }
            return ImageSize(width: width, height: height)
        case FourCC.vp8l:
            guard chunkSize >= 5 else { throw .malformed(.chunkSize) }
            try reader.need(20, 5)
            guard try reader.u8(20) == 0x2F else { throw .malformed(.signature) }
            let bits = try reader.le32(21)
            guard bits >> 29 == 0 else { throw .malformed(.unsupportedVersion) }
            return ImageSize(width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
        case FourCC.vp8x:
            guard chunkSize == 10 else { throw .malformed(.chunkSize) }
            try reader.need(20, 10)
            let width = Int(try reader.le24(24)) + 1
            let height = Int(try reader.le24(27)) + 1
            guard width * height <= 0xFFFF_FFFF else { throw .malformed(.dimensionTooLarge) }
            return ImageSize(width: width, height: height)
        default:
            throw .malformed(.unexpectedChunk)
        }
    }
}
