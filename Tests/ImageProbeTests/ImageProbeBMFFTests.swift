import ImageProbe
import Testing

/// `vector` with its expected `bytesUsed` taken from the decoder when written as 0, for files where
/// counting it by hand would repeat the builders' arithmetic. `checkInvariants` pins the figure down
/// independently: the first `bytesUsed` bytes must give the same result, and no shorter prefix a size.
func withDecodersBytesUsed(_ vector: Vector) -> Vector {
    guard case .image(let expected) = vector.expected, expected.bytesUsed == 0,
        let found = ImageProbe.inspect(vector.bytes).image
    else { return vector }
    return Vector(
        name: vector.name, bytes: vector.bytes,
        expected: .image(DetectedImage(format: expected.format, size: expected.size, bytesUsed: found.bytesUsed)))
}

/// A detected image whose `bytesUsed` is to be taken from the decoder (see `withDecodersBytesUsed`).
func sized(_ format: ImageFormat, _ width: Int, _ height: Int) -> ImageProbeResult {
    .image(DetectedImage(format: format, size: ImageSize(width: width, height: height), bytesUsed: 0))
}

@Suite("ImageProbe: HEIF, HEIC and AVIF (ISO/IEC 14496-12, 23008-12)")
struct ImageProbeBMFFTests {
    static let heic = heif(meta: twoItemMeta(width: 4032, height: 3024))

    static let brands: [(String, [String], ImageFormat)] = [
        ("heic", ["mif1", "heic"], .heic), ("heix", ["mif1"], .heic), ("heim", [], .heic), ("heis", [], .heic),
        ("hevc", ["msf1"], .heic), ("mif1", ["heic"], .heic), ("mif1", ["mif1", "miaf"], .heif), ("msf1", [], .heif),
        ("avif", ["avif", "mif1", "miaf"], .avif), ("avis", ["msf1"], .avif), ("mif1", ["miaf", "avif"], .avif),
        ("mif1", ["heic", "avif"], .avif), ("heic", ["avif"], .heic), ("isom", ["mif1"], .heif),
    ]

    @Test("the format from the ftyp brands", arguments: brands.indices)
    func brand(index: Int) {
        let (major, compatible, format) = ImageProbeBMFFTests.brands[index]
        let bytes = heif(major, compatible, meta: twoItemMeta(width: 40, height: 30))
        // The primary's ipma entry is the last thing read: it ends where meta ends (mdat is 12 bytes).
        #expect(checkInvariants(bytes) == detected(format, 40, 30, used: bytes.count - 12), "\(major) \(compatible)")
    }

    static let valid: [Vector] = {
        /// A file with `meta` and the primary size, 4032x3024 unless told.
        func file(_ children: [[UInt8]], before: [UInt8] = [], after: [UInt8] = []) -> [UInt8] {
            ftyp("heic", ["mif1", "heic"]) + before + meta(children) + after
        }
        let standard: [[UInt8]] = [
            hdlr(), pitm(2),
            iprp([property("hvcC"), ispe(64, 64), ispe(4032, 3024)], [ipma([(1, [1, 2]), (2, [0x81, 3])])]),
        ]
        var vectors = [
            Vector(
                name: "two items: the primary's ispe, not the first one", bytes: heic,
                expected: detected(.heic, 4032, 3024, used: heic.count - 12)),
            Vector(
                name: "pitm after iprp", bytes: file([hdlr(), standard[2], pitm(2)]),
                expected: detected(.heic, 4032, 3024, used: file([hdlr(), standard[2], pitm(2)]).count)),
            Vector(
                name: "32-bit item IDs and 16-bit property indices (pitm v1, ipma v1 flags 1)",
                bytes: file([
                    hdlr(), pitm(70000, version: 1),
                    iprp(
                        [ispe(8, 8), property("hvcC"), ispe(300, 200)],
                        [ipma([(1, [1]), (70000, [2, 3])], version: 1, wide: true)]),
                ]),
                expected: sized(.heic, 300, 200)),
            Vector(
                name: "the primary item in a second ipma box",
                bytes: file([
                    hdlr(), pitm(2), iprp([ispe(10, 10), ispe(20, 30)], [ipma([(1, [1])]), ipma([(2, [2])])]),
                ]),
                expected: sized(.heic, 20, 30)),
            Vector(
                name: "mdat, free and uuid boxes before meta",
                bytes: file(
                    standard,
                    before: box("mdat", [UInt8](repeating: 7, count: 100)) + box("free", [])
                        + box("uuid", [UInt8](repeating: 1, count: 20))),
                expected: sized(.heic, 4032, 3024)),
            Vector(
                name: "a 64-bit size (size 1) on meta and on mdat",
                bytes: ftyp("avif", ["mif1"]) + largeBox("mdat", [1, 2, 3])
                    + largeBox("meta", [0, 0, 0, 0] + standard.flatMap { $0 }),
                expected: sized(.avif, 4032, 3024)),
            Vector(
                name: "meta of size 0 (to the end of the file)",
                bytes: ftyp("mif1", []) + openBox("meta", [0, 0, 0, 0] + standard.flatMap { $0 }),
                expected: sized(.heif, 4032, 3024)),
            Vector(
                name: "property index 0 (no property) is skipped",
                bytes: file([hdlr(), pitm(1), iprp([ispe(5, 6)], [ipma([(1, [0, 1])])])]),
                expected: sized(.heic, 5, 6)),
            Vector(
                name: "largest ispe 2^32-1",
                bytes: file([hdlr(), pitm(1), iprp([ispe(0xFFFF_FFFF, 0xFFFF_FFFF)], [ipma([(1, [1])])])]),
                expected: sized(.heic, 0xFFFF_FFFF, 0xFFFF_FFFF)),
        ]
        vectors = vectors.map(withDecodersBytesUsed)
        return vectors
    }()

    @Test("sizes", arguments: valid)
    func sizes(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }

    static let hostile: [Vector] = {
        let props = iprp([ispe(10, 10)], [ipma([(1, [1])])])
        /// A HEIC file with these `meta` children.
        func file(_ children: [[UInt8]], version: UInt8 = 0) -> [UInt8] {
            ftyp("heic", ["mif1"]) + meta(children, version: version) + box("mdat", [UInt8](repeating: 0, count: 300))
        }
        var deep = ispe(1, 1)
        for _ in 0..<2000 { deep = box("iprp", deep) }
        var deepMeta = meta([hdlr(), pitm(1), props])
        for _ in 0..<2000 { deepMeta = box("meta", deepMeta) }
        return [
            Vector(
                name: "top-level box of size 1 with a 64-bit size past the data",
                bytes: ftyp("heic", []) + largeBox("mdat", [1, 2, 3], largeSize: 1 << 40)
                    + meta([hdlr(), pitm(1), props]),
                expected: .notImage(.truncated(.heic))),
            Vector(
                name: "64-bit size 2^64-1 (no overflow)",
                bytes: ftyp("heic", []) + largeBox("mdat", [], largeSize: UInt64.max),
                expected: .notImage(.truncated(.heic))),
            Vector(
                name: "32-bit size 2^32-1 past the data", bytes: ftyp("heic", []) + box("mdat", [0], size: 0xFFFF_FFFF),
                expected: .notImage(.truncated(.heic))),
            Vector(
                name: "a 64-bit size past meta, within the object",
                bytes: ftyp("heic", []) + meta([hdlr(), largeBox("free", [], largeSize: 1000), pitm(1), props])
                    + box("mdat", [UInt8](repeating: 0, count: 2000)),
                expected: .notImage(.malformed(.heic, .boxOverrunsParent))),
            Vector(
                name: "64-bit size below 16", bytes: ftyp("heic", []) + largeBox("mdat", [], largeSize: 15),
                expected: .notImage(.malformed(.heic, .boxSize))),
            Vector(
                name: "box size 4", bytes: ftyp("heic", []) + box("mdat", [], size: 4) + [0, 0, 0, 0],
                expected: .notImage(.malformed(.heic, .boxSize))),
            Vector(
                name: "uuid box shorter than its extended type", bytes: ftyp("heic", []) + box("uuid", [1, 2, 3]),
                expected: .notImage(.malformed(.heic, .boxSize))),
            Vector(
                name: "2000 nested iprp boxes around an ispe (never entered)",
                bytes: file([hdlr(), pitm(1), box("iprp", deep)]),
                expected: .notImage(.malformed(.heic, .missingBox("ipco")))),
            Vector(
                name: "a complete meta nested 2000 deep inside the top-level meta (never entered)",
                bytes: file([deepMeta]), expected: .notImage(.malformed(.heic, .missingBox("hdlr")))),
            Vector(
                name: "2000 free boxes before meta (over maxBoxes)",
                bytes: ftyp("heic", []) + (0..<2000).flatMap { _ in box("free", []) } + meta([hdlr(), pitm(1), props]),
                expected: .notImage(.malformed(.heic, .tooManyBoxes))),
            Vector(
                name: "ispe directly in meta",
                bytes: file([hdlr(), pitm(1), ispe(10, 10), iprp([property("hvcC")], [ipma([(1, [1])])])]),
                expected: .notImage(.malformed(.heic, .noImageSize))),
            Vector(
                name: "ispe in iprp, not in ipco",
                bytes: file([
                    hdlr(), pitm(1), box("iprp", box("ipco", property("hvcC")) + ispe(10, 10) + ipma([(1, [1])])),
                ]),
                expected: .notImage(.malformed(.heic, .noImageSize))),
            Vector(
                name: "ispe only on another item",
                bytes: file([hdlr(), pitm(2), iprp([ispe(10, 10), property("hvcC")], [ipma([(1, [1]), (2, [2])])])]),
                expected: .notImage(.malformed(.heic, .noImageSize))),
            Vector(
                name: "no ipma entry for the primary item", bytes: file([hdlr(), pitm(3), props]),
                expected: .notImage(.malformed(.heic, .noImageSize))),
            Vector(
                name: "ipma before ipco",
                bytes: file([hdlr(), pitm(1), box("iprp", ipma([(1, [1])]) + box("ipco", ispe(1, 1)))]),
                expected: .notImage(.malformed(.heic, .missingBox("ipco")))),
            Vector(
                name: "property index past ipco",
                bytes: file([hdlr(), pitm(1), iprp([ispe(1, 1)], [ipma([(1, [2])])])]),
                expected: .notImage(.malformed(.heic, .propertyIndex))),
            Vector(
                name: "ipma entry count past the box",
                bytes: file([hdlr(), pitm(9), iprp([ispe(1, 1)], [ipma([(1, [1])], count: 1000)])]),
                expected: .notImage(.malformed(.heic, .boxSize))),
            Vector(
                name: "ipma version 2",
                bytes: file([hdlr(), pitm(1), iprp([ispe(1, 1)], [ipma([(1, [1])], version: 2)])]),
                expected: .notImage(.malformed(.heic, .unsupportedVersion))),
            Vector(
                name: "ispe width 0", bytes: file([hdlr(), pitm(1), iprp([ispe(0, 10)], [ipma([(1, [1])])])]),
                expected: .notImage(.malformed(.heic, .zeroDimension))),
            Vector(
                name: "ispe version 1",
                bytes: file([hdlr(), pitm(1), iprp([ispe(4, 4, version: 1)], [ipma([(1, [1])])])]),
                expected: .notImage(.malformed(.heic, .unsupportedVersion))),
            Vector(
                name: "ispe with one field",
                bytes: file([hdlr(), pitm(1), iprp([fullBox("ispe", be32(4))], [ipma([(1, [1])])])]),
                expected: .notImage(.malformed(.heic, .boxSize))),
            Vector(
                name: "no pitm", bytes: file([hdlr(), props]),
                expected: .notImage(.malformed(.heic, .missingBox("pitm")))),
            Vector(
                name: "no hdlr", bytes: file([pitm(1), props]),
                expected: .notImage(.malformed(.heic, .missingBox("hdlr")))),
            Vector(
                name: "no iprp", bytes: file([hdlr(), pitm(1)]),
                expected: .notImage(.malformed(.heic, .missingBox("iprp")))),
            Vector(
                name: "hdlr vide", bytes: file([hdlr("vide"), pitm(1), props]),
                expected: .notImage(.malformed(.heic, .notPictureHandler))),
            Vector(
                name: "meta version 1", bytes: file([hdlr(), pitm(1), props], version: 1),
                expected: .notImage(.malformed(.heic, .unsupportedVersion))),
            Vector(
                name: "pitm version 2", bytes: file([hdlr(), pitm(1, version: 2), props]),
                expected: .notImage(.malformed(.heic, .unsupportedVersion))),
            Vector(
                name: "a child box past its parent",
                bytes: file([hdlr(), pitm(1), box("iprp", box("ipco", ispe(1, 1)), size: 200)]),
                expected: .notImage(.malformed(.heic, .boxOverrunsParent))),
            Vector(
                name: "three stray bytes at the end of ipco",
                bytes: file([hdlr(), pitm(1), box("iprp", box("ipco", ispe(1, 1) + [0, 0, 0]) + ipma([(1, [1])]))]),
                expected: .notImage(.malformed(.heic, .boxOverrunsParent))),
            Vector(
                name: "no meta before the end of the file", bytes: ftyp("heic", []) + box("mdat", [1]),
                expected: .notImage(.truncated(.heic))),
            Vector(
                name: "ftyp with no room for brands", bytes: box("ftyp", ascii("heic")),
                expected: .notImage(.malformed(nil, .boxSize))),
            Vector(
                name: "ftyp of 18 bytes", bytes: box("ftyp", ascii("heic") + be32(0) + [0, 0]) + meta([]),
                expected: .notImage(.malformed(nil, .boxSize))),
            Vector(
                name: "ftyp of size 0 (fuzzer: its brands were read or not by the object's length)",
                bytes: openBox("ftyp", ascii("avif") + be32(0) + ascii("avifmif1") + meta([hdlr(), pitm(1), props])),
                expected: .notImage(.malformed(nil, .boxSize))),
            Vector(
                name: "ftyp past the end", bytes: box("ftyp", ascii("heic") + be32(0), size: 40),
                expected: .notImage(.truncated(nil))),
            Vector(
                name: "MP4 video brands", bytes: ftyp("isom", ["iso2", "mp41"]) + box("moov", []),
                expected: .notImage(.unknownSignature)),
            Vector(name: "ftyp type cut", bytes: be32(24) + ascii("fty"), expected: .notImage(.truncated(nil))),
        ]
    }()

    @Test("hostile and broken files", arguments: hostile)
    func refusals(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }

    @Test("meta past the bytes given (after a large mdat): the format with no size")
    func metaBeyondTheBytesGiven() {
        let bytes =
            ftyp("heic", ["mif1"]) + box("mdat", [UInt8](repeating: 0, count: 70_000))
            + twoItemMeta(width: 9, height: 9)
        #expect(ImageProbe.inspect(bytes) == .image(DetectedImage(format: .heic, size: nil, bytesUsed: 65536)))
        #expect(
            ImageProbe.inspect(bytes, limits: ImageProbeLimits(maxBytes: 1 << 17)).image?.size
                == ImageSize(width: 9, height: 9))
    }

    @Test("maxBoxes counts boxes at every level")
    func boxLimit() {
        // ftyp, meta, hdlr, pitm, iprp, ipco, hvcC, ispe, ispe, pixi, ipma (the walk stops there): 11 boxes.
        #expect(ImageProbe.inspect(ImageProbeBMFFTests.heic, limits: ImageProbeLimits(maxBoxes: 11)).image?.size != nil)
        #expect(
            ImageProbe.inspect(ImageProbeBMFFTests.heic, limits: ImageProbeLimits(maxBoxes: 10))
                == .notImage(.malformed(.heic, .tooManyBoxes)))
    }
}
