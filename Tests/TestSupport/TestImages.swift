/// Tiny valid image files for tests that upload and confirm: the content check (docs/content-check.md)
/// reads an upload's first bytes and records only images, so a test's upload must be one.
///
/// Each file is built from its format's specification with the fewest parts a header decoder needs:
/// JPEG (ITU-T T.81 annex B: SOI, JFIF APP0, DQT, SOF0, DHT, SOS, EOI), PNG (W3C PNG: signature, IHDR
/// with its CRC, IDAT, IEND), GIF89a (signature, logical screen descriptor, trailer), WebP (RIFF with one
/// lossless `VP8L` chunk), HEIC and AVIF (ISO/IEC 23008-12: `ftyp`, then `meta` with `hdlr pict`,
/// `pitm`, and `iprp` whose `ispe` is the primary item's size). `tail` bytes go after the image's end
/// (a JPEG's EOI, a PNG's IEND…), where no header decoder looks: use them to make two uploads differ.
/// Not decodable pictures (the pixel data are stubs), and never meant to be.
public enum TestImages {
    /// The formats built here.
    public enum Format: String, Sendable, CaseIterable {
        case jpeg, png, gif, webp, heic, avif

        /// The media type the content check records for it.
        public var mimeType: String { "image/" + rawValue }

        /// The usual file extension.
        public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    }

    /// A `width` x `height` file of `format` (each 1...16383, the smallest limit among the formats).
    public static func image(_ format: Format, width: Int, height: Int, tail: [UInt8] = []) -> [UInt8] {
        precondition((1...16383).contains(width) && (1...16383).contains(height), "TestImages: 1...16383 pixels")
        switch format {
        case .jpeg: return jpeg(width: width, height: height, tail: tail)
        case .png: return png(width: width, height: height, tail: tail)
        case .gif: return gif(width: width, height: height, tail: tail)
        case .webp: return webp(width: width, height: height, tail: tail)
        case .heic: return heif(brand: "heic", compatible: ["mif1", "heic"], width: width, height: height) + tail
        case .avif:
            return heif(brand: "avif", compatible: ["avif", "mif1", "miaf"], width: width, height: height) + tail
        }
    }

    /// A baseline JPEG of `width` x `height`.
    public static func jpeg(width: Int, height: Int, tail: [UInt8] = []) -> [UInt8] {
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0xFF, marker] + be16(payload.count + 2) + payload
        }
        let jfif = segment(0xE0, Array("JFIF".utf8) + [0, 1, 2, 0, 0, 1, 0, 1, 0, 0])
        let quantisation = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        // Precision 8, height, width, three components (Y sampled 2x2, Cb and Cr 1x1), all on table 0.
        let frame = segment(0xC0, [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0])
        let huffman = segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])
        let scan = segment(0xDA, [1, 1, 0x00, 0, 63, 0]) + [0x12, 0x34]
        return [0xFF, 0xD8] + jfif + quantisation + frame + huffman + scan + [0xFF, 0xD9] + tail
    }

    /// An 8-bit RGBA PNG of `width` x `height`.
    public static func png(width: Int, height: Int, tail: [UInt8] = []) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + data
            return be32(data.count) + typed + be32(Int(crc32(typed)))
        }
        let header = be32(width) + be32(height) + [8, 6, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", []) + tail
    }

    /// A GIF89a of `width` x `height` with no colour table and no frame.
    public static func gif(width: Int, height: Int, tail: [UInt8] = []) -> [UInt8] {
        Array("GIF89a".utf8) + le16(width) + le16(height) + [0x00, 0x00, 0x00, 0x3B] + tail
    }

    /// A lossless (`VP8L`) WebP of `width` x `height`.
    public static func webp(width: Int, height: Int, tail: [UInt8] = []) -> [UInt8] {
        // Signature 0x2F, then 14 bits of width-1, 14 of height-1, 1 alpha bit, 3 version bits (0).
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14
        let payload: [UInt8] = [0x2F] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * UInt32($0))) } + [0, 0, 0]
        let chunk = Array("VP8L".utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
        return Array("RIFF".utf8) + le32(chunk.count + 4) + Array("WEBP".utf8) + chunk + tail
    }

    /// A one-item HEIF (`brand` and `compatible` brands in `ftyp`) whose primary item is `width` x `height`.
    static func heif(brand: String, compatible: [String], width: Int, height: Int) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(payload.count + 8) + Array(type.utf8) + payload }
        func fullBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
        let fileType = box("ftyp", Array(brand.utf8) + be32(0) + compatible.flatMap { Array($0.utf8) })
        let handler = fullBox("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let primary = fullBox("pitm", be16(1))
        let spatialExtent = fullBox("ispe", be32(width) + be32(height))
        // One entry: item 1, one association, property index 1 (not essential).
        let associations = fullBox("ipma", be32(1) + be16(1) + [1, 0x01])
        let properties = box("iprp", box("ipco", spatialExtent) + associations)
        let meta = fullBox("meta", handler + primary + properties)
        return fileType + meta + box("mdat", [0, 0, 0, 0])
    }

    /// An HTML page: what a stored-XSS upload labelled `image/jpeg` looks like.
    public static let html = Array(
        "<!DOCTYPE html>\n<html><body><script>alert(document.domain)</script></body></html>\n".utf8)

    /// An SVG document with a script: scriptable, so never an allowed image.
    public static let svg = Array(
        #"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8)

    /// The first `count` bytes of a PNG: an object that ends inside its header.
    public static func truncatedPNG(keeping count: Int = 20) -> [UInt8] {
        Array(png(width: 8, height: 8).prefix(count))
    }

    /// `value` as two big-endian bytes.
    static func be16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    /// `value` as four big-endian bytes.
    static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// `value` as two little-endian bytes.
    static func le16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    /// `value` as four little-endian bytes.
    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// CRC-32 (ISO 3309, reflected polynomial 0xEDB88320), bit by bit: PNG's chunk checksum.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
