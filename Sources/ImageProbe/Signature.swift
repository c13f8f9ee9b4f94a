/// The container an object's first bytes announce (internal: chosen before any format is decoded).
enum Signature: Equatable {
    /// `FF D8 FF`: SOI and the start of the next marker.
    case jpeg
    /// The eight PNG signature bytes.
    case png
    /// `GIF87a` or `GIF89a`.
    case gif
    /// `RIFF`, a size, `WEBP`.
    case webp
    /// Any size and `ftyp`: an ISO BMFF file, of a format its brands tell.
    case bmff
    /// The bytes end inside a signature; the format when the signature alone tells it.
    case partial(ImageFormat?)
    /// No image signature.
    case none

    /// SOI and the first byte of the next marker.
    static let jpegBytes: [UInt8] = [0xFF, 0xD8, 0xFF]
    /// The PNG signature.
    static let pngBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The two GIF versions' signatures.
    static let gifBytes: [[UInt8]] = [Array("GIF87a".utf8), Array("GIF89a".utf8)]
    /// `RIFF`.
    static let riffBytes: [UInt8] = Array("RIFF".utf8)
    /// `WEBP`, the RIFF form type at offset 8.
    static let webpBytes: [UInt8] = Array("WEBP".utf8)
    /// `ftyp`, the first box type at offset 4.
    static let ftypBytes: [UInt8] = Array("ftyp".utf8)

    /// The signature `bytes` start with.
    static func of(_ bytes: UnsafeRawBufferPointer) -> Signature {
        let count = bytes.count
        /// Whether `bytes[offset...]` starts with `pattern`, or ends inside it (then `partial` is set).
        func match(_ pattern: [UInt8], at offset: Int, _ partial: inout Bool) -> Bool {
            for (i, byte) in pattern.enumerated() {
                guard offset + i < count else {
                    partial = true
                    return true
                }
                if bytes[offset + i] != byte { return false }
            }
            return true
        }
        var cut = false
        if match(jpegBytes, at: 0, &cut) { return cut ? .partial(.jpeg) : .jpeg }
        cut = false
        if match(pngBytes, at: 0, &cut) { return cut ? .partial(.png) : .png }
        for version in gifBytes {
            cut = false
            if match(version, at: 0, &cut) { return cut ? .partial(.gif) : .gif }
        }
        cut = false
        if match(riffBytes, at: 0, &cut) {
            if cut || count <= 8 { return .partial(.webp) }
            if match(webpBytes, at: 8, &cut) { return cut ? .partial(.webp) : .webp }
            return .none
        }
        // The first four bytes are the box size; a cut inside them says nothing yet.
        cut = false
        if count > 4, match(ftypBytes, at: 4, &cut) { return cut ? .partial(nil) : .bmff }
        return .none
    }
}
