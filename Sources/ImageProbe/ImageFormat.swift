/// An image format the decoder recognises.
public enum ImageFormat: String, Sendable, Equatable, Hashable, CaseIterable {
    /// JPEG (ITU-T T.81 / JFIF / Exif).
    case jpeg
    /// PNG (ISO/IEC 15948, W3C PNG).
    case png
    /// GIF87a or GIF89a.
    case gif
    /// WebP in a RIFF container (lossy VP8, lossless VP8L or extended VP8X).
    case webp
    /// HEIF with HEVC-coded images (brands heic, heix, heim, heis, hevc, hevx, hevm, hevs).
    case heic
    /// HEIF with no more specific brand (mif1, msf1).
    case heif
    /// AVIF: HEIF with AV1-coded images (brands avif, avis).
    case avif

    /// The media type the format is served as.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .gif: return "image/gif"
        case .webp: return "image/webp"
        case .heic: return "image/heic"
        case .heif: return "image/heif"
        case .avif: return "image/avif"
        }
    }

    /// The largest width or height the format's header can express.
    ///
    /// JPEG and GIF: 16-bit fields; PNG: 2^31-1; WebP: 2^24 (VP8X canvas; VP8 and VP8L stop at 2^14);
    /// HEIF and AVIF: the 32-bit fields of `ispe`.
    public var maxDimension: Int {
        switch self {
        case .jpeg, .gif: return 65535
        case .png: return 0x7FFF_FFFF
        case .webp: return 1 << 24
        case .heic, .heif, .avif: return 0xFFFF_FFFF
        }
    }
}
