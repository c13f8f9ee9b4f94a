import ImageProbe
import Testing

/// A hand-built input and what the decoder must say about it.
struct Vector: Sendable, CustomTestStringConvertible {
    /// What the vector is and where its shape comes from.
    let name: String
    /// The object's bytes.
    let bytes: [UInt8]
    /// The expected result.
    let expected: ImageProbeResult

    var testDescription: String { name }
}

/// A detected image of `format` with `size`, the result depending on `used` bytes.
func detected(_ format: ImageFormat, _ width: Int, _ height: Int, used: Int) -> ImageProbeResult {
    .image(DetectedImage(format: format, size: ImageSize(width: width, height: height), bytesUsed: used))
}

/// Where a JPEG's frame header ends: SOI, the segments before it, the frame segment.
func frameEnd(before: [UInt8], components: Int = 3) -> Int { 2 + before.count + 2 + 8 + 3 * components }

@Suite("ImageProbe: JPEG (T.81 annex B)")
struct ImageProbeJPEGTests {
    static let exifThumbnail: [UInt8] = {
        // An Exif-like APP1 whose payload holds a complete 160x120 JPEG (a thumbnail, as in Exif IFD1).
        let thumbnail = jpeg(width: 160, height: 120)
        return segment(0xE1, ascii("Exif") + [0, 0] + ascii("MM") + [0, 42] + be32(8) + thumbnail)
    }()
    /// An XMP APP1 segment whose length field is `length`.
    static func xmp(length: Int) -> [UInt8] {
        segment(0xE1, ascii("http://ns.adobe.com/xap/1.0/\u{0}") + [UInt8](repeating: 0x20, count: length - 2 - 29))
    }
    static let largeApp1 = xmp(length: 60000)
    static let largestApp1 = xmp(length: 65535)
    static let fillAndStandalone: [UInt8] = [0xFF, 0xFF, 0xFF] + [0xD0] + [0xFF, 0x01] + [0xFF, 0xFF, 0xD7]

    static let valid: [Vector] = {
        var vectors = [
            Vector(
                name: "baseline SOF0 640x480 after APP0 and DQT", bytes: jpeg(width: 640, height: 480),
                expected: detected(.jpeg, 640, 480, used: frameEnd(before: app0 + dqt))),
            Vector(
                name: "progressive SOF2 4032x3024", bytes: jpeg(width: 4032, height: 3024, code: 0xC2),
                expected: detected(.jpeg, 4032, 3024, used: frameEnd(before: app0 + dqt))),
            Vector(
                name: "SOF directly after SOI, one component",
                bytes: jpeg(width: 1, height: 1, components: 1, before: []),
                expected: detected(.jpeg, 1, 1, used: frameEnd(before: [], components: 1))),
            Vector(
                name: "largest size 65535x65535", bytes: jpeg(width: 65535, height: 65535),
                expected: detected(.jpeg, 65535, 65535, used: frameEnd(before: app0 + dqt))),
            Vector(
                name: "Exif APP1 holding a 160x120 thumbnail before the 800x600 frame",
                bytes: jpeg(width: 800, height: 600, before: app0 + exifThumbnail + dqt),
                expected: detected(.jpeg, 800, 600, used: frameEnd(before: app0 + exifThumbnail + dqt))),
            Vector(
                name: "XMP APP1 of 60000 bytes before SOF",
                bytes: jpeg(width: 320, height: 200, before: largeApp1 + dqt),
                expected: detected(.jpeg, 320, 200, used: frameEnd(before: largeApp1 + dqt))),
            Vector(
                name: "fill bytes, RST0, TEM and RST7 before DQT",
                bytes: jpeg(width: 33, height: 44, before: app0 + fillAndStandalone + dqt),
                expected: detected(.jpeg, 33, 44, used: frameEnd(before: app0 + fillAndStandalone + dqt))),
            Vector(
                name: "COM, DRI, DHT, DAC, APP15 and JPG0 before SOF",
                bytes: jpeg(
                    width: 9, height: 7,
                    before: segment(0xFE, ascii("hello")) + segment(0xDD, be16(4)) + dht + segment(0xCC, [0x00, 0x11])
                        + segment(0xEF, []) + segment(0xF0, [1])),
                expected: detected(
                    .jpeg, 9, 7,
                    used: frameEnd(
                        before: segment(0xFE, ascii("hello")) + segment(0xDD, be16(4)) + dht
                            + segment(0xCC, [0x00, 0x11]) + segment(0xEF, []) + segment(0xF0, [1])))),
            Vector(
                name: "extended SOF1 with 12-bit precision",
                bytes: jpeg(width: 100, height: 50, code: 0xC1, precision: 12),
                expected: detected(.jpeg, 100, 50, used: frameEnd(before: app0 + dqt))),
            Vector(
                name: "lossless SOF3 with 16-bit precision",
                bytes: jpeg(width: 100, height: 50, code: 0xC3, precision: 16),
                expected: detected(.jpeg, 100, 50, used: frameEnd(before: app0 + dqt))),
        ]
        for code: UInt8 in [0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF] {
            vectors.append(
                Vector(
                    name: "SOF 0x" + String(code, radix: 16), bytes: jpeg(width: 12, height: 34, code: code),
                    expected: detected(.jpeg, 12, 34, used: frameEnd(before: app0 + dqt))))
        }
        return vectors
    }()

    @Test("sizes", arguments: valid)
    func sizes(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }

    static let hostile: [Vector] = [
        Vector(
            name: "segment length 0", bytes: soi + [0xFF, 0xE0, 0x00, 0x00] + dqt,
            expected: .notImage(.malformed(.jpeg, .segmentLength))),
        Vector(
            name: "segment length 1", bytes: soi + [0xFF, 0xE1, 0x00, 0x01] + dqt,
            expected: .notImage(.malformed(.jpeg, .segmentLength))),
        Vector(
            name: "segment length 65535 in a 100-byte object",
            bytes: soi + [0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 94),
            expected: .notImage(.truncated(.jpeg))),
        Vector(
            name: "frame length 1", bytes: soi + [0xFF, 0xC0, 0x00, 0x01] + framePayload(width: 1, height: 1),
            expected: .notImage(.malformed(.jpeg, .segmentLength))),
        Vector(
            name: "frame length 10 (shorter than one component)",
            bytes: soi + segment(0xC0, Array(framePayload(width: 1, height: 1, components: 1).prefix(8))),
            expected: .notImage(.malformed(.jpeg, .frameHeader))),
        Vector(
            name: "frame length does not match three components",
            bytes: soi + segment(0xC0, framePayload(width: 1, height: 1, components: 3) + [0]),
            expected: .notImage(.malformed(.jpeg, .frameHeader))),
        Vector(
            name: "frame with no component", bytes: soi + segment(0xC0, [8] + be16(1) + be16(1) + [0]),
            expected: .notImage(.malformed(.jpeg, .frameHeader))),
        Vector(
            name: "baseline with 12-bit precision", bytes: jpeg(width: 5, height: 5, precision: 12),
            expected: .notImage(.malformed(.jpeg, .frameHeader))),
        Vector(
            name: "sampling factor 0", bytes: soi + segment(0xC0, [8] + be16(1) + be16(1) + [1, 1, 0x01, 0]),
            expected: .notImage(.malformed(.jpeg, .frameHeader))),
        Vector(
            name: "quantisation table 4", bytes: soi + segment(0xC0, [8] + be16(1) + be16(1) + [1, 1, 0x11, 4]),
            expected: .notImage(.malformed(.jpeg, .frameHeader))),
        Vector(
            name: "height 0 (DNL)", bytes: jpeg(width: 10, height: 0),
            expected: .notImage(.malformed(.jpeg, .zeroDimension))),
        Vector(
            name: "width 0", bytes: jpeg(width: 0, height: 10), expected: .notImage(.malformed(.jpeg, .zeroDimension))),
        Vector(
            name: "SOS before any frame", bytes: soi + dqt + scan + eoi,
            expected: .notImage(.malformed(.jpeg, .unexpectedMarker(0xDA)))),
        Vector(
            name: "EOI before any frame", bytes: soi + app0 + eoi,
            expected: .notImage(.malformed(.jpeg, .unexpectedMarker(0xD9)))),
        Vector(
            name: "SOI twice", bytes: soi + soi + app0, expected: .notImage(.malformed(.jpeg, .unexpectedMarker(0xD8)))),
        Vector(
            name: "DNL before any frame", bytes: soi + segment(0xDC, be16(5)),
            expected: .notImage(.malformed(.jpeg, .unexpectedMarker(0xDC)))),
        Vector(
            name: "stuffed 00 as a marker", bytes: soi + [0xFF, 0x00] + app0,
            expected: .notImage(.malformed(.jpeg, .unexpectedMarker(0x00)))),
        Vector(
            name: "reserved marker 0x02", bytes: soi + segment(0x02, [0]),
            expected: .notImage(.malformed(.jpeg, .unexpectedMarker(0x02)))),
        Vector(
            name: "reserved marker 0xBF", bytes: soi + segment(0xBF, [0]),
            expected: .notImage(.malformed(.jpeg, .unexpectedMarker(0xBF)))),
        Vector(
            name: "HTML after the JPEG signature (a polyglot)",
            bytes: soi + [0xFF] + ascii("<html><script>alert(1)</script>"),
            expected: .notImage(.malformed(.jpeg, .unexpectedMarker(0x3C)))),
        Vector(
            name: "garbage between segments", bytes: soi + app0 + [0x00] + dqt + jpeg(width: 1, height: 1).dropFirst(2),
            expected: .notImage(.malformed(.jpeg, .expectedMarker))),
        Vector(
            name: "fill bytes to the end", bytes: soi + [UInt8](repeating: 0xFF, count: 50),
            expected: .notImage(.truncated(.jpeg))),
        Vector(name: "ends after SOI and APP0", bytes: soi + app0, expected: .notImage(.truncated(.jpeg))),
        Vector(
            name: "2000 RST markers before SOF (over maxJPEGMarkers)",
            bytes: soi
                + [UInt8](repeating: 0, count: 2000).enumerated().flatMap { [0xFF, 0xD0 + UInt8($0.offset % 8)] }
                + segment(0xC0, framePayload(width: 1, height: 1)),
            expected: .notImage(.malformed(.jpeg, .tooManyMarkers))),
    ]

    @Test("hostile and broken headers", arguments: hostile)
    func refusals(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }

    @Test("a segment past the bytes given, inside the object: JPEG with no size")
    func segmentBeyondTheBytesGiven() {
        let bytes = soi + [0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 94)
        #expect(
            ImageProbe.inspect(bytes, totalLength: 1_000_000)
                == .image(DetectedImage(format: .jpeg, size: nil, bytesUsed: bytes.count)))
        // The frame after 64 KiB of APPn segments lies past maxBytes: the format, without a size.
        // An APP1 of the largest length (65535) puts the frame header past 64 KiB: the format, no size;
        // with a larger maxBytes the size is found.
        let long = jpeg(width: 10, height: 10, before: ImageProbeJPEGTests.largestApp1)
        #expect(ImageProbe.inspect(long) == .image(DetectedImage(format: .jpeg, size: nil, bytesUsed: 65536)))
        let more = ImageProbeLimits(maxBytes: 1 << 17)
        #expect(
            checkInvariants(long, limits: more)
                == detected(.jpeg, 10, 10, used: frameEnd(before: ImageProbeJPEGTests.largestApp1)))
    }

    @Test("maxJPEGMarkers counts every marker before the frame")
    func markerLimit() {
        let bytes = jpeg(width: 3, height: 4)  // APP0, DQT, SOF: three markers
        #expect(
            ImageProbe.inspect(bytes, limits: ImageProbeLimits(maxJPEGMarkers: 3)).image?.size
                == ImageSize(width: 3, height: 4))
        #expect(
            ImageProbe.inspect(bytes, limits: ImageProbeLimits(maxJPEGMarkers: 2))
                == .notImage(.malformed(.jpeg, .tooManyMarkers)))
    }
}
