/// Reads a JPEG's size from its frame header (ITU-T T.81, annex B), walking the marker segments before it.
enum JPEGHeader {
    /// The size in the first frame header (SOF0-3, 5-7, 9-11, 13-15).
    ///
    /// T.81, B.1.1: after SOI come marker segments (`FF`, a code, a 16-bit length that counts itself)
    /// and standalone markers (RSTm, TEM); any number of `FF` fill bytes may precede a code. APPn,
    /// COM, DQT, DHT, DAC, DRI, DHP, EXP, JPGn and JPG are skipped by their lengths, so a thumbnail
    /// inside an Exif APP1 segment is never mistaken for the image. SOS, EOI, DNL, SOI, 0x00 and
    /// the reserved codes 0x02-0xBF cannot come before the frame header.
    static func size(_ reader: inout ProbeReader, limits: ImageProbeLimits) throws(ProbeStop) -> ImageSize {
        var position = 2
        var markers = 0
        while true {
            guard try reader.u8(position) == 0xFF else { throw .malformed(.expectedMarker) }
            position += 1
            var code = try reader.u8(position)
            while code == 0xFF {
                position += 1
                code = try reader.u8(position)
            }
            position += 1
            markers += 1
            if markers > limits.maxJPEGMarkers { throw .malformed(.tooManyMarkers) }
            switch code {
            case 0x01, 0xD0...0xD7:
                continue
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                return try frame(&reader, at: position, code: code)
            case 0xC4, 0xC8, 0xCC, 0xDB, 0xDD, 0xDE, 0xDF, 0xE0...0xFE:
                let length = Int(try reader.be16(position))
                guard length >= 2 else { throw .malformed(.segmentLength) }
                try reader.within(position, length)
                position += length
            default:
                throw .malformed(.unexpectedMarker(code))
            }
        }
    }

    /// The size in the frame header whose length field is at `offset` (T.81, B.2.2).
    ///
    /// Lf = 8 + 3 × Nf with Nf ≥ 1; P is 8 (baseline), 8 or 12 (other DCT processes) or 2-16
    /// (lossless); each component's H and V are 1-4 and Tq is 0-3; X must be at least 1, and Y = 0
    /// (height given later by DNL) is refused because the size is not in the header.
    static func frame(_ reader: inout ProbeReader, at offset: Int, code: UInt8) throws(ProbeStop) -> ImageSize {
        let length = Int(try reader.be16(offset))
        guard length >= 2 else { throw .malformed(.segmentLength) }
        guard length >= 11 else { throw .malformed(.frameHeader) }
        try reader.need(offset, length)
        let precision = try reader.u8(offset + 2)
        let height = Int(try reader.be16(offset + 3))
        let width = Int(try reader.be16(offset + 5))
        let components = Int(try reader.u8(offset + 7))
        guard components >= 1, length == 8 + 3 * components else { throw .malformed(.frameHeader) }
        let precisionOK: Bool
        switch code {
        case 0xC0: precisionOK = precision == 8
        case 0xC3, 0xC7, 0xCB, 0xCF: precisionOK = (2...16).contains(precision)
        default: precisionOK = precision == 8 || precision == 12
        }
        guard precisionOK else { throw .malformed(.frameHeader) }
        for index in 0..<components {
            let sampling = try reader.u8(offset + 9 + 3 * index)
            let table = try reader.u8(offset + 10 + 3 * index)
            guard (1...4).contains(sampling >> 4), (1...4).contains(sampling & 0x0F), table <= 3 else {
                throw .malformed(.frameHeader)
            }
        }
        guard width > 0, height > 0 else { throw .malformed(.zeroDimension) }
        return ImageSize(width: width, height: height)
    }
}
