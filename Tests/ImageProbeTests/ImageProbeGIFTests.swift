import ImageProbe
import Testing

@Suite("ImageProbe: GIF (GIF89a 17-18)")
struct ImageProbeGIFTests {
    static let vectors: [Vector] = [
        Vector(name: "GIF89a 1x1", bytes: gif(width: 1, height: 1), expected: detected(.gif, 1, 1, used: 13)),
        Vector(
            name: "GIF87a 640x480", bytes: gif("87a", width: 640, height: 480),
            expected: detected(.gif, 640, 480, used: 13)),
        Vector(
            name: "GIF89a 65535x65535", bytes: gif(width: 65535, height: 65535),
            expected: detected(.gif, 65535, 65535, used: 13)),
        Vector(
            name: "little-endian: 0x0102 x 0x0304", bytes: gif(width: 0x0102, height: 0x0304),
            expected: detected(.gif, 258, 772, used: 13)),
        Vector(
            name: "zero width", bytes: gif(width: 0, height: 9), expected: .notImage(.malformed(.gif, .zeroDimension))),
        Vector(
            name: "zero height", bytes: gif(width: 9, height: 0), expected: .notImage(.malformed(.gif, .zeroDimension))),
        Vector(
            name: "zero size", bytes: gif(width: 0, height: 0), expected: .notImage(.malformed(.gif, .zeroDimension))),
        Vector(
            name: "cut inside the screen descriptor", bytes: Array(gif(width: 3, height: 3).prefix(10)),
            expected: .notImage(.truncated(.gif))),
        Vector(
            name: "GIF88a is no GIF version", bytes: gif("88a", width: 1, height: 1),
            expected: .notImage(.unknownSignature)),
        Vector(name: "GIF signature only", bytes: ascii("GIF89"), expected: .notImage(.truncated(.gif))),
    ]

    @Test("sizes and refusals", arguments: vectors)
    func cases(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }
}
