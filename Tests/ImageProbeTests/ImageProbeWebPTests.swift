import ImageProbe
import Testing

@Suite("ImageProbe: WebP (container spec, RFC 6386 9.1, lossless bitstream 3)")
struct ImageProbeWebPTests {
    static let vectors: [Vector] = [
        Vector(
            name: "VP8 key frame 640x480", bytes: webp(riffChunk("VP8 ", vp8Payload(width: 640, height: 480))),
            expected: detected(.webp, 640, 480, used: 30)),
        Vector(
            name: "VP8 scaling bits are not size",
            bytes: webp(riffChunk("VP8 ", vp8Payload(width: 16383, height: 1, scale: 3))),
            expected: detected(.webp, 16383, 1, used: 30)),
        Vector(
            name: "VP8 version 3", bytes: webp(riffChunk("VP8 ", vp8Payload(width: 2, height: 2, version: 3))),
            expected: detected(.webp, 2, 2, used: 30)),
        Vector(
            name: "VP8L 16384x16384 with alpha",
            bytes: webp(riffChunk("VP8L", vp8lPayload(width: 16384, height: 16384, alpha: 1))),
            expected: detected(.webp, 16384, 16384, used: 25)),
        Vector(
            name: "VP8L 1x1", bytes: webp(riffChunk("VP8L", vp8lPayload(width: 1, height: 1))),
            expected: detected(.webp, 1, 1, used: 25)),
        Vector(
            name: "VP8X 4000x3000 then VP8",
            bytes: webp(
                riffChunk("VP8X", vp8xPayload(width: 4000, height: 3000))
                    + riffChunk("VP8 ", vp8Payload(width: 4000, height: 3000))),
            expected: detected(.webp, 4000, 3000, used: 30)),
        Vector(
            name: "VP8X canvas 2^24 x 255 (under 2^32 pixels)",
            bytes: webp(riffChunk("VP8X", vp8xPayload(width: 1 << 24, height: 255))),
            expected: detected(.webp, 1 << 24, 255, used: 30)),
        Vector(
            name: "VP8X canvas 2^24 x 256 (2^32 pixels)",
            bytes: webp(riffChunk("VP8X", vp8xPayload(width: 1 << 24, height: 256))),
            expected: .notImage(.malformed(.webp, .dimensionTooLarge))),
        Vector(
            name: "VP8X canvas 2^24 x 2^24",
            bytes: webp(riffChunk("VP8X", vp8xPayload(width: 1 << 24, height: 1 << 24))),
            expected: .notImage(.malformed(.webp, .dimensionTooLarge))),
        Vector(name: "RIFF size 4", bytes: webp([], riffSize: 4), expected: .notImage(.malformed(.webp, .riffSize))),
        Vector(
            name: "RIFF size 2^32-1",
            bytes: webp(riffChunk("VP8L", vp8lPayload(width: 1, height: 1)), riffSize: 0xFFFF_FFFF),
            expected: .notImage(.malformed(.webp, .riffSize))),
        Vector(
            name: "RIFF size past the object",
            bytes: webp(riffChunk("VP8L", vp8lPayload(width: 1, height: 1)), riffSize: 1000),
            expected: .notImage(.truncated(.webp))),
        Vector(
            name: "chunk larger than the RIFF payload",
            bytes: webp(riffChunk("VP8L", vp8lPayload(width: 1, height: 1), size: 200)),
            expected: .notImage(.malformed(.webp, .chunkSize))),
        Vector(
            name: "first chunk ALPH", bytes: webp(riffChunk("ALPH", [0, 0, 0, 0])),
            expected: .notImage(.malformed(.webp, .unexpectedChunk))),
        Vector(
            name: "VP8 inter frame", bytes: webp(riffChunk("VP8 ", vp8Payload(width: 4, height: 4, keyFrame: false))),
            expected: .notImage(.malformed(.webp, .notKeyFrame))),
        Vector(
            name: "VP8 frame not shown", bytes: webp(riffChunk("VP8 ", vp8Payload(width: 4, height: 4, shown: false))),
            expected: .notImage(.malformed(.webp, .hiddenFrame))),
        Vector(
            name: "VP8 version 4", bytes: webp(riffChunk("VP8 ", vp8Payload(width: 4, height: 4, version: 4))),
            expected: .notImage(.malformed(.webp, .unsupportedVersion))),
        Vector(
            name: "VP8 first partition past the chunk",
            bytes: webp(riffChunk("VP8 ", vp8Payload(width: 4, height: 4, partition: 5))),
            expected: .notImage(.malformed(.webp, .chunkSize))),
        Vector(
            name: "VP8 wrong start code",
            bytes: webp(riffChunk("VP8 ", vp8Payload(width: 4, height: 4, startCode: [0x9D, 0x01, 0x2B]))),
            expected: .notImage(.malformed(.webp, .startCode))),
        Vector(
            name: "VP8 width 0", bytes: webp(riffChunk("VP8 ", vp8Payload(width: 0, height: 4))),
            expected: .notImage(.malformed(.webp, .zeroDimension))),
        Vector(
            name: "VP8 chunk of 9 bytes",
            bytes: webp(riffChunk("VP8 ", Array(vp8Payload(width: 4, height: 4).prefix(9)))),
            expected: .notImage(.malformed(.webp, .chunkSize))),
        Vector(
            name: "VP8L signature 0x2E",
            bytes: webp(riffChunk("VP8L", vp8lPayload(width: 1, height: 1, signature: 0x2E))),
            expected: .notImage(.malformed(.webp, .signature))),
        Vector(
            name: "VP8L version 1", bytes: webp(riffChunk("VP8L", vp8lPayload(width: 1, height: 1, version: 1))),
            expected: .notImage(.malformed(.webp, .unsupportedVersion))),
        Vector(
            name: "VP8X chunk of 12 bytes", bytes: webp(riffChunk("VP8X", vp8xPayload(width: 1, height: 1) + [0, 0])),
            expected: .notImage(.malformed(.webp, .chunkSize))),
        Vector(
            name: "RIFF WAVE is not WebP",
            bytes: ascii("RIFF") + le(36, 4) + ascii("WAVEfmt ") + le(16, 4) + [1, 0, 1, 0],
            expected: .notImage(.unknownSignature)),
        Vector(
            name: "RIFF header only", bytes: ascii("RIFF") + le(4, 4) + ascii("WEBP"),
            expected: .notImage(.malformed(.webp, .riffSize))),
        Vector(
            name: "cut inside WEBP", bytes: ascii("RIFF") + le(4, 4) + ascii("WE"),
            expected: .notImage(.truncated(.webp))),
    ]

    @Test("sizes and refusals", arguments: vectors)
    func cases(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }
}
