/// What is wrong with a header that has a recognised signature.
public enum ImageDefect: Sendable, Equatable, CustomStringConvertible {
    /// A dimension is zero (or, for JPEG, left to a later DNL marker).
    case zeroDimension
    /// A dimension or the pixel count is past what the format allows.
    case dimensionTooLarge
    /// JPEG: a byte other than 0xFF where a marker must start (T.81, B.1.1.2).
    case expectedMarker
    /// JPEG: a marker that cannot appear before the frame header (SOI again, EOI, SOS, DNL, 0x00 or a
    /// reserved code), carrying the marker's second byte.
    case unexpectedMarker(UInt8)
    /// JPEG: a segment length below 2 (T.81, B.1.1.4).
    case segmentLength
    /// JPEG: a frame header whose length, precision, component count or sampling factors are invalid
    /// (T.81, B.2.2).
    case frameHeader
    /// JPEG: more markers before the frame header than `ImageProbeLimits.maxJPEGMarkers`.
    case tooManyMarkers
    /// PNG: the first chunk is not IHDR.
    case firstChunkNotHeader
    /// PNG: the IHDR length is not 13.
    case headerLength
    /// PNG: an IHDR field (bit depth, colour type, compression, filter, interlace) is invalid.
    case headerField
    /// PNG: the IHDR CRC does not match its bytes.
    case checksum
    /// WebP: the RIFF size is too small for a chunk or above 2^32-10.
    case riffSize
    /// WebP: the first chunk's size does not fit the RIFF payload or its kind.
    case chunkSize
    /// WebP: the first chunk is not VP8, VP8L or VP8X.
    case unexpectedChunk
    /// WebP VP8: the frame is not a key frame.
    case notKeyFrame
    /// WebP VP8: the frame is marked as not to be shown.
    case hiddenFrame
    /// WebP VP8: the key frame start code is not 9D 01 2A.
    case startCode
    /// WebP VP8L: the signature byte is not 0x2F.
    case signature
    /// A version field the specification does not define (VP8, VP8L, or an ISO BMFF full box).
    case unsupportedVersion
    /// ISO BMFF: a box size below its header, or a box too short for its fields.
    case boxSize
    /// ISO BMFF: a box runs past the end of the box that contains it.
    case boxOverrunsParent
    /// ISO BMFF: more boxes than `ImageProbeLimits.maxBoxes`.
    case tooManyBoxes
    /// ISO BMFF: a required box is missing (or, for `ipco`, not before `ipma`), with its type.
    case missingBox(String)
    /// ISO BMFF: the `meta` handler is not `pict`.
    case notPictureHandler
    /// ISO BMFF: an `ipma` association names a property index past the `ipco` box.
    case propertyIndex
    /// ISO BMFF: no `ispe` property is associated with the primary item.
    case noImageSize

    /// A few words naming the defect.
    public var description: String {
        switch self {
        case .zeroDimension: return "a dimension is zero"
        case .dimensionTooLarge: return "a dimension is too large"
        case .expectedMarker: return "a marker was expected"
        case .unexpectedMarker(let code): return "unexpected marker 0x" + String(code, radix: 16, uppercase: true)
        case .segmentLength: return "a segment length is below 2"
        case .frameHeader: return "the frame header is invalid"
        case .tooManyMarkers: return "too many markers before the frame header"
        case .firstChunkNotHeader: return "the first chunk is not IHDR"
        case .headerLength: return "the IHDR length is not 13"
        case .headerField: return "an IHDR field is invalid"
        case .checksum: return "the IHDR checksum does not match"
        case .riffSize: return "the RIFF size is invalid"
        case .chunkSize: return "a chunk size is invalid"
        case .unexpectedChunk: return "the first chunk is not VP8, VP8L or VP8X"
        case .notKeyFrame: return "the frame is not a key frame"
        case .hiddenFrame: return "the frame is not shown"
        case .startCode: return "the key frame start code is wrong"
        case .signature: return "the lossless signature is wrong"
        case .unsupportedVersion: return "an unsupported version"
        case .boxSize: return "a box size is invalid"
        case .boxOverrunsParent: return "a box runs past its parent"
        case .tooManyBoxes: return "too many boxes"
        case .missingBox(let type): return "no '\(type)' box"
        case .notPictureHandler: return "the metadata handler is not 'pict'"
        case .propertyIndex: return "a property index is out of range"
        case .noImageSize: return "the primary image has no size"
        }
    }
}
