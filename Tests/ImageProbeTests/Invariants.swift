import ImageProbe
import Testing

/// Inspects `bytes` as a whole object and checks every property that must hold whatever the input,
/// returning the whole-object result:
/// - the same result at 16 buffer offsets, through a non-contiguous collection and a raw buffer;
/// - a detected image's `bytesUsed` is within the input, and the first `bytesUsed` bytes (with the
///   object's length) give the same result;
/// - a detected size is 1...`format.maxDimension`, and bytes appended after the input never change it;
/// - a detected image is the same when the object is said to go on (`totalLength` larger);
/// - every proper prefix of a detected image, as a whole object and as the start of the longer object,
///   is never malformed and never another format: when it holds `bytesUsed`, the same result as the
///   start of the longer object, and the same or `.truncated` as a whole object (a RIFF or box size may
///   say the object is longer); shorter, `.truncated` (whole object) or the format without a size (longer
///   object), or, for at most four bytes that cannot yet show a signature, `.unknownSignature`.
@discardableResult
func checkInvariants(
    _ bytes: [UInt8], limits: ImageProbeLimits = ImageProbeLimits(), sourceLocation: SourceLocation = #_sourceLocation
) -> ImageProbeResult {
    let whole = ImageProbe.inspect(bytes, limits: limits)
    for shift in 0..<16 {
        let padded = [UInt8](repeating: 0xA5, count: shift) + bytes
        #expect(
            ImageProbe.inspect(padded[shift...], limits: limits) == whole, "at offset \(shift)",
            sourceLocation: sourceLocation)
    }
    #expect(
        ImageProbe.inspect(bytes.lazy.map { $0 }, limits: limits) == whole, "non-contiguous",
        sourceLocation: sourceLocation)
    bytes.withUnsafeBytes { raw in
        #expect(ImageProbe.inspect(raw, limits: limits) == whole, "raw buffer", sourceLocation: sourceLocation)
    }
    guard case .image(let image) = whole else { return whole }
    let examined = min(bytes.count, limits.maxBytes)
    #expect(image.bytesUsed <= examined, "bytesUsed within the input", sourceLocation: sourceLocation)
    #expect(
        ImageProbe.inspect(bytes[0..<image.bytesUsed], totalLength: bytes.count, limits: limits) == whole,
        "first bytesUsed bytes", sourceLocation: sourceLocation)
    #expect(
        ImageProbe.inspect(bytes, totalLength: bytes.count + 100_000, limits: limits) == whole,
        "longer object", sourceLocation: sourceLocation)
    if let size = image.size {
        #expect((1...image.format.maxDimension).contains(size.width), sourceLocation: sourceLocation)
        #expect((1...image.format.maxDimension).contains(size.height), sourceLocation: sourceLocation)
        for tail in [[0x00], [0xFF, 0xD9], [UInt8](repeating: 0xFF, count: 40), Array(bytes.reversed())] {
            #expect(
                ImageProbe.inspect(bytes + tail, limits: limits) == whole, "appended", sourceLocation: sourceLocation)
        }
    } else {
        #expect(image.bytesUsed == examined, "no size: depends on every byte given", sourceLocation: sourceLocation)
    }
    for length in 0..<examined {
        let prefix = bytes[0..<length]
        let cut = ImageProbe.inspect(prefix, limits: limits)
        let partOf = ImageProbe.inspect(prefix, totalLength: bytes.count, limits: limits)
        if image.size != nil && length >= image.bytesUsed {
            // A whole object that short may contradict a length its header declares (RIFF size, box sizes).
            #expect(
                cut == whole || cut == .notImage(.truncated(image.format)), "prefix \(length) of a whole object",
                sourceLocation: sourceLocation)
            #expect(partOf == whole, "prefix \(length) of a longer object", sourceLocation: sourceLocation)
            continue
        }
        #expect(
            acceptable(cut, format: image.format, length: length, whole: true),
            "prefix \(length) of a whole object: \(cut)", sourceLocation: sourceLocation)
        #expect(
            acceptable(partOf, format: image.format, length: length, whole: false),
            "prefix \(length) of a longer object: \(partOf)", sourceLocation: sourceLocation)
    }
    return whole
}

/// Whether `result` is what a cut-short header of `format` may yield (see `checkInvariants`).
private func acceptable(
    _ result: ImageProbeResult, format: ImageFormat, length: Int, whole: Bool
) -> Bool {
    switch result {
    case .image(let image):
        return !whole && image == DetectedImage(format: format, size: nil, bytesUsed: length)
    case .notImage(.truncated(let found)):
        return found == nil || found == format
    case .notImage(.empty):
        return whole && length == 0
    case .notImage(.unknownSignature):
        return length <= 4
    default:
        return false
    }
}
