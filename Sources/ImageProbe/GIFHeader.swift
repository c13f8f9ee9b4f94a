/// Reads a GIF's size from its logical screen descriptor (GIF89a specification, sections 17-18).
enum GIFHeader {
    /// Bytes from the start of the file to the end of the logical screen descriptor.
    static let headerEnd = 13

    /// The logical screen width and height (little-endian, after the six-byte signature); both at least 1.
    static func size(_ reader: inout ProbeReader) throws(ProbeStop) -> ImageSize {
        try reader.need(0, headerEnd)
        let width = Int(try reader.le16(6))
        let height = Int(try reader.le16(8))
        guard width > 0, height > 0 else { throw .malformed(.zeroDimension) }
        return ImageSize(width: width, height: height)
    }
}
