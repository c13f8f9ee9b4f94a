import CFuzzShim
import ImageProbe

/// Small limits, so that every limit (examined bytes, JPEG markers, boxes, text window) is reached by
/// inputs of fuzzing size.
let smallLimits = ImageProbeLimits(maxBytes: 512, maxJPEGMarkers: 8, maxBoxes: 12, textWindow: 64)

/// Whether `result`, for the first `length` bytes of an object whose whole header gave `format` with a
/// size, is what a cut-short header may give: truncated (format or not yet known), the format with no
/// size when the object goes on, or for at most four bytes an unknown signature (or empty, for none).
func acceptableCut(_ result: ImageProbeResult, format: ImageFormat, length: Int, wholeObject: Bool) -> Bool {
    switch result {
    case .image(let image): return !wholeObject && image == DetectedImage(format: format, size: nil, bytesUsed: length)
    case .notImage(.truncated(let found)): return found == nil || found == format
    case .notImage(.empty): return wholeObject && length == 0
    case .notImage(.unknownSignature): return length <= 4
    default: return false
    }
}

/// The format a result is about: detected, or truncated or malformed with a known format.
func formatOf(_ result: ImageProbeResult) -> ImageFormat? {
    switch result {
    case .image(let image): return image.format
    case .notImage(.truncated(let format)), .notImage(.malformed(let format, _)): return format
    default: return nil
    }
}

/// Checks every property on `bytes` under `limits` (a violated precondition is a crash = a finding).
func check(_ bytes: UnsafeRawBufferPointer, limits: ImageProbeLimits, salt: UInt8) {
    let count = bytes.count
    let whole = ImageProbe.inspect(bytes, limits: limits)
    // The same bytes at another address (odd offset) give the same result.
    var shifted: [UInt8] = [salt]
    shifted.append(contentsOf: bytes)
    let moved = shifted.withUnsafeBytes {
        ImageProbe.inspect(UnsafeRawBufferPointer(rebasing: $0[1...]), limits: limits)
    }
    precondition(moved == whole, "result depends on the address")
    let longer = ImageProbe.inspect(bytes, totalLength: count + 12345, limits: limits)
    switch whole {
    case .notImage(.truncated(let format?)):
        // The object going on only lets the decoder get further into the same format.
        precondition(formatOf(longer) == format, "longer object changed the format")
        return
    case .notImage:
        return
    case .image(let image):
        let examined = min(count, limits.maxBytes)
        precondition(image.bytesUsed >= 0 && image.bytesUsed <= examined, "bytesUsed outside the input")
        precondition(longer == whole, "an image changed when the object was said to go on")
        let head = UnsafeRawBufferPointer(rebasing: bytes[0..<image.bytesUsed])
        precondition(
            ImageProbe.inspect(head, totalLength: count, limits: limits) == whole,
            "the result depends on bytes after bytesUsed")
        guard let size = image.size else {
            precondition(image.bytesUsed == examined, "no size, yet not every byte given was used")
            return
        }
        precondition(size.width >= 1 && size.width <= image.format.maxDimension, "width out of the format's range")
        precondition(size.height >= 1 && size.height <= image.format.maxDimension, "height out of the format's range")
        if image.format == .webp { precondition(size.width * size.height <= 0xFFFF_FFFF, "WebP canvas too large") }
        // Bytes appended after a complete header never change it.
        var appended = Array(bytes)
        appended.append(contentsOf: [salt, 0xFF, 0xD9, 0x00, 0x00, 0x00, 0x00] + bytes.prefix(32))
        precondition(ImageProbe.inspect(appended, limits: limits) == whole, "appended bytes changed the result")
        // A cut before bytesUsed is never malformed nor another format; after it, never a different image.
        for cut in [image.bytesUsed - 1, image.bytesUsed / 2, Int(salt) % max(image.bytesUsed, 1)] where cut >= 0 {
            let prefix = UnsafeRawBufferPointer(rebasing: bytes[0..<cut])
            let asWhole = ImageProbe.inspect(prefix, limits: limits)
            precondition(
                acceptableCut(asWhole, format: image.format, length: cut, wholeObject: true), "bad cut (whole)")
            let asStart = ImageProbe.inspect(prefix, totalLength: count, limits: limits)
            precondition(
                acceptableCut(asStart, format: image.format, length: cut, wholeObject: false), "bad cut (start)")
        }
        if image.bytesUsed < count {
            let cut = image.bytesUsed + (count - image.bytesUsed) / 2
            let prefix = UnsafeRawBufferPointer(rebasing: bytes[0..<cut])
            let asWhole = ImageProbe.inspect(prefix, limits: limits)
            precondition(
                asWhole == whole || asWhole == .notImage(.truncated(image.format)), "cut after bytesUsed (whole)")
            precondition(ImageProbe.inspect(prefix, totalLength: count, limits: limits) == whole, "cut after bytesUsed")
        }
    }
}

/// One fuzz input = the first bytes of an uploaded object, as confirmation would read them.
///
/// Properties (see `check`), under the default and under small limits: no trap or hang; the same result
/// at another address; a detected image's `bytesUsed` is within the input and the result depends on no
/// byte after it; a detected size is within the format's range; bytes appended after a complete header
/// never change it; a cut header is never malformed nor another format; saying the object goes on never
/// changes a detected image, and only lets the decoder get further into a truncated format.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
    let salt = size == 0 ? 0x5A : bytes[size - 1]
    check(bytes, limits: ImageProbeLimits(), salt: salt)
    check(bytes, limits: smallLimits, salt: salt &+ 1)
    return 0
}

// See FuzzHTTP1: SwiftPM's `--defsym main=<Module>_main` needs this symbol under -parse-as-library.
@_cdecl("FuzzImageProbe_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v) { data, size in fuzzTestOneInput(data, size) }
}
