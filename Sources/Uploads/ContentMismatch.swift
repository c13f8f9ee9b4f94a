import ImageProbe

/// Why the content check refused an object: what its first bytes are, against what its type allows.
public enum ContentMismatch: Sendable, Equatable {
    /// The bytes are not an image of an allowed format (HTML, SVG, text, a truncated or malformed header…).
    case notImage(ImageRefusal)
    /// A well-formed image of `detected`, a format the upload type does not allow.
    case formatNotAllowed(detected: ImageFormat, type: String, allowed: [String])

    /// A stable identifier for logs: the refusal's code (`html`, `svg`, `truncated`, …) or `format_not_allowed`.
    public var code: String {
        switch self {
        case .notImage(let refusal): return refusal.code
        case .formatNotAllowed: return "format_not_allowed"
        }
    }

    /// One sentence for the client; never echoes the object's bytes.
    public var message: String {
        switch self {
        case .notImage(let refusal): return refusal.message
        case .formatNotAllowed(let detected, let type, let allowed):
            return
                "the object is a \(detected.rawValue.uppercased()) image (\(detected.mimeType)); type \(type) allows "
                + allowed.joined(separator: ", ")
        }
    }
}
