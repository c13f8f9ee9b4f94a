// Hand-built minimal headers, written from the formats' specifications (each builder names its source).

/// The bytes of `text`.
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

/// `value` as two big-endian bytes.
func be16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }

/// `value` as four big-endian bytes.
func be32(_ value: UInt64) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt64($0))) } }

/// `value` as eight big-endian bytes.
func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) } }

/// `value` as `count` little-endian bytes.
func le(_ value: UInt64, _ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

// MARK: - JPEG (ITU-T T.81, annex B)

/// SOI.
let soi: [UInt8] = [0xFF, 0xD8]
/// EOI.
let eoi: [UInt8] = [0xFF, 0xD9]

/// A marker segment: `FF code`, a length that counts itself, the payload (T.81, B.1.1.4).
func segment(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] { [0xFF, code] + be16(payload.count + 2) + payload }

/// A frame header payload (T.81, B.2.2): precision, height, width, and per component an id, 1x1
/// sampling (0x22 for the first of three) and quantisation table 0.
func framePayload(width: Int, height: Int, components: Int = 3, precision: UInt8 = 8) -> [UInt8] {
    var payload: [UInt8] = [precision] + be16(height) + be16(width) + [UInt8(components)]
    for index in 0..<components { payload += [UInt8(index + 1), index == 0 && components == 3 ? 0x22 : 0x11, 0] }
    return payload
}

/// A JFIF APP0 segment (JFIF 1.02).
let app0 = segment(0xE0, ascii("JFIF") + [0, 1, 2, 0, 0, 1, 0, 1, 0, 0])
/// A DQT segment with one 8-bit table of ones.
let dqt = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
/// A DHT segment with one DC table of one code.
let dht = segment(0xC4, [0x00] + [1] + [UInt8](repeating: 0, count: 15) + [0])
/// An SOS segment for one component, then two bytes of entropy-coded data.
let scan = segment(0xDA, [1, 1, 0x00, 0, 63, 0]) + [0x12, 0x34]

/// A minimal JPEG: SOI, `before` (default APP0 and DQT), the frame header, DHT, SOS, data, EOI.
func jpeg(
    width: Int, height: Int, code: UInt8 = 0xC0, precision: UInt8 = 8, components: Int = 3,
    before: [UInt8] = app0 + dqt
) -> [UInt8] {
    soi + before
        + segment(code, framePayload(width: width, height: height, components: components, precision: precision))
        + dht + scan + eoi
}

// MARK: - PNG (W3C PNG, 5.2-5.3, 11.2.2)

/// CRC-32 as PNG annex D computes it, with a table (independent of the module's bitwise loop).
func pngCRC(_ bytes: [UInt8]) -> UInt32 {
    var table = [UInt32](repeating: 0, count: 256)
    for n in 0..<256 {
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        table[n] = c
    }
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
}

/// A PNG chunk: length, type, data, CRC over type and data (`crc` overrides the CRC).
func chunk(_ type: String, _ data: [UInt8], crc: UInt32? = nil) -> [UInt8] {
    be32(UInt64(data.count)) + ascii(type) + data + be32(UInt64(crc ?? pngCRC(ascii(type) + data)))
}

/// The PNG signature.
let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// A PNG of IHDR (with these fields), an IDAT stub and IEND.
func png(
    width: UInt64, height: UInt64, depth: UInt8 = 8, colour: UInt8 = 6, compression: UInt8 = 0, filter: UInt8 = 0,
    interlace: UInt8 = 0, crc: UInt32? = nil
) -> [UInt8] {
    let fields = be32(width) + be32(height) + [depth, colour, compression, filter, interlace]
    return pngSignature + chunk("IHDR", fields, crc: crc) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + chunk("IEND", [])
}

// MARK: - GIF (GIF89a specification, 17-18)

/// A GIF: signature, logical screen descriptor (no global colour table), trailer.
func gif(_ version: String = "89a", width: Int, height: Int) -> [UInt8] {
    ascii("GIF" + version) + le(UInt64(width), 2) + le(UInt64(height), 2) + [0x00, 0x00, 0x00] + [0x3B]
}

// MARK: - WebP (WebP container specification; RFC 6386 9.1; WebP lossless bitstream 3)

/// A RIFF chunk: fourcc, little-endian size, payload, a pad byte when the size is odd.
func riffChunk(_ fourcc: String, _ payload: [UInt8], size: Int? = nil) -> [UInt8] {
    ascii(fourcc) + le(UInt64(size ?? payload.count), 4) + payload + (payload.count % 2 == 1 ? [0] : [])
}

/// `RIFF`, the size (`riffSize` overrides it), `WEBP`, the chunks.
func webp(_ chunks: [UInt8], riffSize: Int? = nil) -> [UInt8] {
    ascii("RIFF") + le(UInt64(riffSize ?? chunks.count + 4), 4) + ascii("WEBP") + chunks
}

/// A VP8 key frame payload: frame tag, start code, 14-bit sizes with scaling bits, then filler.
func vp8Payload(
    width: Int, height: Int, keyFrame: Bool = true, version: UInt64 = 0, shown: Bool = true,
    partition: UInt64 = 4, startCode: [UInt8] = [0x9D, 0x01, 0x2A], scale: UInt64 = 0
) -> [UInt8] {
    let tag: UInt64 = (keyFrame ? 0 : 1) | version << 1 | (shown ? 1 : 0) << 4 | partition << 5
    return le(tag, 3) + startCode + le(UInt64(width) | scale << 14, 2) + le(UInt64(height) | scale << 14, 2)
        + [0, 0, 0, 0]
}

/// A VP8L payload: signature, then width-1, height-1, alpha and version bits, then filler.
func vp8lPayload(width: Int, height: Int, alpha: UInt64 = 0, version: UInt64 = 0, signature: UInt8 = 0x2F) -> [UInt8] {
    let bits = UInt64(width - 1) | UInt64(height - 1) << 14 | alpha << 28 | version << 29
    return [signature] + le(bits, 4) + [0, 0]
}

/// A VP8X payload: flags, reserved, 24-bit canvas width-1 and height-1.
func vp8xPayload(width: Int, height: Int, flags: UInt8 = 0x10) -> [UInt8] {
    [flags, 0, 0, 0] + le(UInt64(width - 1), 3) + le(UInt64(height - 1), 3)
}

// MARK: - ISO BMFF / HEIF (ISO/IEC 14496-12, 4.2; ISO/IEC 23008-12, 9.3; AVIF)

/// A box with a 32-bit size (`size` overrides it).
func box(_ type: String, _ payload: [UInt8], size: UInt64? = nil) -> [UInt8] {
    be32(size ?? UInt64(payload.count + 8)) + ascii(type) + payload
}

/// A box with `size == 1` and a 64-bit size (`largeSize` overrides it).
func largeBox(_ type: String, _ payload: [UInt8], largeSize: UInt64? = nil) -> [UInt8] {
    be32(1) + ascii(type) + be64(largeSize ?? UInt64(payload.count + 16)) + payload
}

/// A box with `size == 0`: it runs to the end of its parent or the file.
func openBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(0) + ascii(type) + payload }

/// A full box: version, 24-bit flags, payload.
func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
    box(type, [version] + be32(UInt64(flags)).suffix(3) + payload)
}

/// `ftyp` with a major brand, minor version 0 and compatible brands.
func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
    box("ftyp", ascii(major) + be32(0) + compatible.flatMap(ascii))
}

/// `hdlr` of `handler` (pre_defined, handler_type, three reserved words, an empty name).
func hdlr(_ handler: String = "pict") -> [UInt8] {
    fullBox("hdlr", [0, 0, 0, 0] + ascii(handler) + [UInt8](repeating: 0, count: 12) + [0])
}

/// `pitm` naming `item` (version 0: 16 bits; version 1: 32 bits).
func pitm(_ item: UInt64, version: UInt8 = 0) -> [UInt8] {
    fullBox("pitm", version: version, version == 0 ? be16(Int(item)) : be32(item))
}

/// `ispe` of `width` by `height`.
func ispe(_ width: UInt64, _ height: UInt64, version: UInt8 = 0) -> [UInt8] {
    fullBox("ispe", version: version, be32(width) + be32(height))
}

/// A stand-in property box of `type` (its content is never read).
func property(_ type: String) -> [UInt8] { box(type, [1, 2, 3, 4]) }

/// `ipma`: per entry an item ID and its 1-based property indices (essential bit clear).
func ipma(_ entries: [(item: UInt64, indices: [Int])], version: UInt8 = 0, wide: Bool = false, count: UInt64? = nil)
    -> [UInt8]
{
    var payload = be32(count ?? UInt64(entries.count))
    for entry in entries {
        payload += version == 0 ? be16(Int(entry.item)) : be32(entry.item)
        payload.append(UInt8(entry.indices.count))
        for index in entry.indices { payload += wide ? be16(index) : [UInt8(index)] }
    }
    return fullBox("ipma", version: version, flags: wide ? 1 : 0, payload)
}

/// `iprp` holding `ipco` with `properties` and then the `ipma` boxes.
func iprp(_ properties: [[UInt8]], _ associations: [[UInt8]]) -> [UInt8] {
    box("iprp", box("ipco", properties.flatMap { $0 }) + associations.flatMap { $0 })
}

/// `meta` (version 0) holding `children`.
func meta(_ children: [[UInt8]], version: UInt8 = 0) -> [UInt8] {
    fullBox("meta", version: version, children.flatMap { $0 })
}

/// The `meta` of a two-item HEIF: item 1 has a 64x64 `ispe` (a tile or the coded size), item 2, the
/// primary, has `width` x `height` at property index 3.
func twoItemMeta(width: UInt64, height: UInt64) -> [UInt8] {
    meta([
        hdlr(), pitm(2),
        iprp(
            [property("hvcC"), ispe(64, 64), ispe(width, height), property("pixi")],
            [ipma([(1, [1, 2]), (2, [1, 3, 4])])]),
    ])
}

/// A HEIF file: `ftyp`, `meta`, an `mdat` stub.
func heif(_ major: String = "heic", _ compatible: [String] = ["mif1", "heic"], meta: [UInt8]) -> [UInt8] {
    ftyp(major, compatible) + meta + box("mdat", [0xAB, 0xCD, 0xEF, 0x01])
}
