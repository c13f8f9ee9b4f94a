/// Tells from an object's first bytes whether it is an allowed image, which format, and its pixel size.
///
/// Pure and bounded: it reads only the bytes given (at most `ImageProbeLimits.maxBytes`), every loop
/// advances through them or counts against a limit, nothing recurses, nothing is allocated in
/// proportion to a size the input declares, and no input traps.
///
/// `totalLength` says how long the whole object is; without it the bytes are the whole object.
/// That decides what running out of bytes means: a header cut by the end of the object is refused
/// as `.truncated`, while a header that goes on past the bytes given (a JPEG whose frame header
/// follows 64 KiB of metadata, a HEIF whose `meta` follows `mdat`) yields the format with a nil size.
public enum ImageProbe {
    /// Inspects `bytes`, the first bytes of an object of `totalLength` bytes (nil: `bytes` is all of it).
    ///
    /// A `totalLength` below `bytes.count` is taken as `bytes.count`.
    public static func inspect(
        _ bytes: UnsafeRawBufferPointer, totalLength: Int? = nil, limits: ImageProbeLimits = ImageProbeLimits()
    ) -> ImageProbeResult {
        let total = max(totalLength ?? bytes.count, bytes.count)
        let examined = UnsafeRawBufferPointer(rebasing: bytes.prefix(limits.maxBytes))
        if examined.isEmpty { return .notImage(total == 0 ? .empty : .truncated(nil)) }
        var reader = ProbeReader(bytes: examined, total: total)
        switch Signature.of(examined) {
        case .jpeg:
            return decode(.jpeg, &reader, signature: 3) { (r) throws(ProbeStop) in
                try JPEGHeader.size(&r, limits: limits)
            }
        case .png: return decode(.png, &reader, signature: 8) { (r) throws(ProbeStop) in try PNGHeader.size(&r) }
        case .gif: return decode(.gif, &reader, signature: 6) { (r) throws(ProbeStop) in try GIFHeader.size(&r) }
        case .webp: return decode(.webp, &reader, signature: 12) { (r) throws(ProbeStop) in try WebPHeader.size(&r) }
        case .bmff: return BMFFHeader.inspect(&reader, limits: limits)
        case .partial(let format): return .notImage(.truncated(format))
        case .none: return .notImage(DocumentSniffer.refusal(examined, limits: limits))
        }
    }

    /// Inspects `bytes`, the first bytes of an object of `totalLength` bytes (nil: `bytes` is all of it).
    ///
    /// Contiguous collections (arrays, slices, `Data`) are read in place; others are copied, at most
    /// `limits.maxBytes` of them.
    public static func inspect<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, totalLength: Int? = nil, limits: ImageProbeLimits = ImageProbeLimits()
    ) -> ImageProbeResult {
        if let result = bytes.withContiguousStorageIfAvailable({
            inspect(UnsafeRawBufferPointer($0), totalLength: totalLength, limits: limits)
        }) {
            return result
        }
        let count = bytes.count
        let head = Array(bytes.prefix(limits.maxBytes))
        return head.withUnsafeBytes { inspect($0, totalLength: max(totalLength ?? count, count), limits: limits) }
    }

    /// Runs one format's decoder after its `signature` bytes and maps how it stopped to a result.
    static func decode(
        _ format: ImageFormat, _ reader: inout ProbeReader, signature: Int,
        _ decoder: (inout ProbeReader) throws(ProbeStop) -> ImageSize
    ) -> ImageProbeResult {
        do throws(ProbeStop) {
            try reader.need(0, signature)
            let size = try decoder(&reader)
            return .image(DetectedImage(format: format, size: size, bytesUsed: reader.used))
        } catch {
            switch error {
            case .beyond: return .image(DetectedImage(format: format, size: nil, bytesUsed: reader.count))
            case .truncated: return .notImage(.truncated(format))
            case .malformed(let defect): return .notImage(.malformed(format, defect))
            }
        }
    }
}
