import ImageProbe
import Testing

/// A real file made by a real encoder (Fixtures/README.md says how) and what it holds.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    /// The file name under Fixtures/.
    let file: String
    /// The format the encoder wrote.
    let format: ImageFormat
    /// The size the encoder was asked for.
    let width: Int
    /// The size the encoder was asked for.
    let height: Int

    var testDescription: String { file }
}

@Suite("ImageProbe: files from real encoders")
struct ImageProbeFixtureTests {
    static let cases: [FixtureCase] = [
        FixtureCase(file: "jpeg-baseline-64x48.jpg", format: .jpeg, width: 64, height: 48),
        FixtureCase(file: "jpeg-progressive-80x60.jpg", format: .jpeg, width: 80, height: 60),
        FixtureCase(file: "jpeg-exif-40x30.jpg", format: .jpeg, width: 40, height: 30),
        FixtureCase(file: "png-rgb-33x17.png", format: .png, width: 33, height: 17),
        FixtureCase(file: "png-rgba-21x13.png", format: .png, width: 21, height: 13),
        FixtureCase(file: "png-gray-3000x1.png", format: .png, width: 3000, height: 1),
        FixtureCase(file: "png-interlaced-19x11.png", format: .png, width: 19, height: 11),
        FixtureCase(file: "gif-7x9.gif", format: .gif, width: 7, height: 9),
        FixtureCase(file: "gif87a-12x5.gif", format: .gif, width: 12, height: 5),
        FixtureCase(file: "gif-anim-30x20.gif", format: .gif, width: 30, height: 20),
        FixtureCase(file: "webp-vp8-64x48.webp", format: .webp, width: 64, height: 48),
        FixtureCase(file: "webp-vp8l-33x17.webp", format: .webp, width: 33, height: 17),
        FixtureCase(file: "webp-vp8x-alpha-21x13.webp", format: .webp, width: 21, height: 13),
        FixtureCase(file: "webp-vp8x-anim-30x20.webp", format: .webp, width: 30, height: 20),
        FixtureCase(file: "heic-33x17.heic", format: .heic, width: 33, height: 17),
        FixtureCase(file: "heic-thumb-64x48.heic", format: .heic, width: 64, height: 48),
        FixtureCase(file: "avif-19x11.avif", format: .avif, width: 19, height: 11),
        FixtureCase(file: "avif-alpha-21x13.avif", format: .avif, width: 21, height: 13),
        FixtureCase(file: "avif-irot-64x48.avif", format: .avif, width: 64, height: 48),
        FixtureCase(file: "avif-heifenc-64x48.avif", format: .avif, width: 64, height: 48),
    ]

    @Test("format and size, and every truncation", arguments: cases)
    func sizes(_ item: FixtureCase) {
        let bytes = fixture(item.file)
        #expect(bytes.count > 0, "fixture \(item.file) is missing")
        let result = checkInvariants(bytes)
        #expect(result.image?.format == item.format)
        #expect(result.image?.size == ImageSize(width: item.width, height: item.height))
    }

    @Test("the Exif thumbnail inside APP1 (160x120, a JPEG of its own) is not taken for the image")
    func exifThumbnail() {
        let bytes = fixture("jpeg-exif-40x30.jpg")
        // The APP1 segment holds a second SOI and a 160x120 SOF0 before the image's own 40x30 SOF0.
        let sof160x120: [UInt8] = [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x78, 0x00, 0xA0]
        let firstSOF = (0..<bytes.count - sof160x120.count).first {
            Array(bytes[$0..<$0 + sof160x120.count]) == sof160x120
        }
        #expect(firstSOF != nil && firstSOF! < 7000)
        #expect(ImageProbe.inspect(bytes).image?.size == ImageSize(width: 40, height: 30))
    }

    @Test("HEIC: the primary item's ispe (33x17), not the first ispe in ipco (64x64)")
    func heicPrimary() {
        let bytes = fixture("heic-33x17.heic")
        let first = ascii("ispe") + [0, 0, 0, 0] + be32(64) + be32(64)
        #expect((0..<bytes.count - first.count).contains { Array(bytes[$0..<$0 + first.count]) == first })
        #expect(ImageProbe.inspect(bytes).image?.size == ImageSize(width: 33, height: 17))
    }
}
