import ImageProbe
import Testing

@Suite("ImageProbe: PNG (W3C PNG 5.2-5.3, 11.2.2)")
struct ImageProbePNGTests {
    static let valid: [Vector] = {
        var vectors = [
            Vector(name: "1x1 RGBA", bytes: png(width: 1, height: 1), expected: detected(.png, 1, 1, used: 33)),
            Vector(
                name: "4032x3024 RGB", bytes: png(width: 4032, height: 3024, colour: 2),
                expected: detected(.png, 4032, 3024, used: 33)),
            Vector(
                name: "largest width 2^31-1", bytes: png(width: 0x7FFF_FFFF, height: 1),
                expected: detected(.png, 0x7FFF_FFFF, 1, used: 33)),
            Vector(
                name: "Adam7 interlaced", bytes: png(width: 5, height: 6, interlace: 1),
                expected: detected(.png, 5, 6, used: 33)),
        ]
        // Every bit depth allowed for each colour type (table 11.1).
        for (colour, depths) in [
            (0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]), (6, [8, 16]),
        ] {
            for depth in depths {
                vectors.append(
                    Vector(
                        name: "colour type \(colour), depth \(depth)",
                        bytes: png(width: 7, height: 3, depth: UInt8(depth), colour: UInt8(colour)),
                        expected: detected(.png, 7, 3, used: 33)))
            }
        }
        return vectors
    }()

    @Test("sizes", arguments: valid)
    func sizes(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }

    static let hostile: [Vector] = {
        var vectors = [
            Vector(
                name: "width 0", bytes: png(width: 0, height: 5), expected: .notImage(.malformed(.png, .zeroDimension))),
            Vector(
                name: "height 0", bytes: png(width: 5, height: 0), expected: .notImage(.malformed(.png, .zeroDimension))
            ),
            Vector(
                name: "width 2^31", bytes: png(width: 0x8000_0000, height: 5),
                expected: .notImage(.malformed(.png, .dimensionTooLarge))),
            Vector(
                name: "height 2^32-1", bytes: png(width: 5, height: 0xFFFF_FFFF),
                expected: .notImage(.malformed(.png, .dimensionTooLarge))),
            Vector(
                name: "wrong CRC", bytes: png(width: 5, height: 5, crc: 0x1234_5678),
                expected: .notImage(.malformed(.png, .checksum))),
            Vector(
                name: "IDAT first",
                bytes: pngSignature + chunk("IDAT", [UInt8](repeating: 0, count: 13)) + chunk("IEND", []),
                expected: .notImage(.malformed(.png, .firstChunkNotHeader))),
            Vector(
                name: "IHDR of 14 bytes", bytes: pngSignature + chunk("IHDR", be32(5) + be32(5) + [8, 6, 0, 0, 0, 0]),
                expected: .notImage(.malformed(.png, .headerLength))),
            Vector(
                name: "compression method 1", bytes: png(width: 5, height: 5, compression: 1),
                expected: .notImage(.malformed(.png, .headerField))),
            Vector(
                name: "filter method 1", bytes: png(width: 5, height: 5, filter: 1),
                expected: .notImage(.malformed(.png, .headerField))),
            Vector(
                name: "interlace method 2", bytes: png(width: 5, height: 5, interlace: 2),
                expected: .notImage(.malformed(.png, .headerField))),
            Vector(name: "signature only", bytes: pngSignature, expected: .notImage(.truncated(.png))),
            Vector(
                name: "IHDR cut before its CRC", bytes: Array(png(width: 5, height: 5).prefix(29)),
                expected: .notImage(.truncated(.png))),
        ]
        for (colour, depth) in [(0, 3), (2, 4), (3, 16), (4, 1), (6, 2), (1, 8), (5, 8), (7, 8)] {
            vectors.append(
                Vector(
                    name: "colour type \(colour) with depth \(depth)",
                    bytes: png(width: 5, height: 5, depth: UInt8(depth), colour: UInt8(colour)),
                    expected: .notImage(.malformed(.png, .headerField))))
        }
        return vectors
    }()

    @Test("hostile and broken headers", arguments: hostile)
    func refusals(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }

    @Test("a cut IHDR: truncated when the object ends there, PNG with no size when it goes on")
    func truncation() {
        let cut = Array(png(width: 5, height: 5).prefix(20))
        #expect(ImageProbe.inspect(cut) == .notImage(.truncated(.png)))
        #expect(
            ImageProbe.inspect(cut, totalLength: 5000) == .image(DetectedImage(format: .png, size: nil, bytesUsed: 20)))
    }
}
