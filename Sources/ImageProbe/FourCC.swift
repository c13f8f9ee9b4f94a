/// Four-character codes of ISO BMFF boxes, brands and RIFF chunks, as big-endian 32-bit values.
enum FourCC {
    /// The big-endian value of four ASCII characters.
    static func code(_ text: String) -> UInt32 {
        precondition(text.utf8.count == 4, "FourCC needs four ASCII characters")
        return text.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// `ftyp`: the file type box.
    static let ftyp = code("ftyp")
    /// `meta`: the metadata box (a full box).
    static let meta = code("meta")
    /// `hdlr`: the handler box.
    static let hdlr = code("hdlr")
    /// `pict`: the handler type of image metadata.
    static let pict = code("pict")
    /// `pitm`: the primary item box.
    static let pitm = code("pitm")
    /// `iprp`: the item properties box.
    static let iprp = code("iprp")
    /// `ipco`: the item property container box.
    static let ipco = code("ipco")
    /// `ipma`: the item property association box.
    static let ipma = code("ipma")
    /// `ispe`: the image spatial extents property.
    static let ispe = code("ispe")
    /// `uuid`: a box with a 16-byte extended type after its header.
    static let uuid = code("uuid")
    /// `VP8 `: a lossy WebP bitstream chunk.
    static let vp8 = code("VP8 ")
    /// `VP8L`: a lossless WebP bitstream chunk.
    static let vp8l = code("VP8L")
    /// `VP8X`: the extended WebP header chunk.
    static let vp8x = code("VP8X")
    /// `IHDR`: the PNG image header chunk.
    static let ihdr = code("IHDR")
}
