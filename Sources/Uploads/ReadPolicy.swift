import JSON
import Records
import SigV4

/// The serving policy signed into a record's read URL: storage answers the GET with these headers
/// whatever the uploader sent (S3's `response-content-type`, `response-content-disposition` and
/// `response-cache-control`, which it honours on signed requests only). Pure.
///
/// - `Content-Type`: the record's content type (the detected format's when the content check ran).
/// - `Content-Disposition`: `inline` only for the raster image types of `inlineContentTypes`, else
///   `attachment`, with an RFC 6266 file name (an ASCII `filename`, and RFC 5987's `filename*` in
///   UTF-8 when the name is not plain ASCII), from the record's metadata `filename` or else the key's
///   last segment; no quote, CR, LF, `;`, `\`, `/` or control character of the name reaches the header.
/// - `Cache-Control`: `private, max-age=<the URL's lifetime>, immutable` (object keys are never reused).
public struct ReadPolicy: Sendable, Equatable {
    /// The `Content-Type` storage answers with.
    public let contentType: String
    /// Whether the object is shown in place or downloaded.
    public let disposition: ReadDisposition
    /// The file name offered, sanitized (never empty).
    public let filename: String

    /// The policy of `record`; `requested` asks for a disposition (`inline` is given only to a type of
    /// `inlineContentTypes`, whatever is asked: a front door refuses that request first).
    public init(record: ImageRecord, requested: ReadDisposition? = nil) {
        contentType = Self.servedContentType(record.contentType)
        let inlineAllowed = Self.allowsInline(contentType)
        switch requested {
        case .attachment: disposition = .attachment
        case .inline, nil: disposition = inlineAllowed ? .inline : .attachment
        }
        filename = Self.filename(metadataJSON: record.metadataJSON, objectKey: record.objectKey)
    }

    /// The media types served `inline`: the raster image formats the content check knows.
    public static let inlineContentTypes: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif",
    ]

    /// Whether `contentType` (its media type, in any case, parameters ignored) may be served `inline`.
    public static func allowsInline(_ contentType: String) -> Bool {
        var text = contentType
        return text.withUTF8 { bytes in
            // The media type: up to `;`, without the spaces and tabs around it.
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
            while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
            let media = UnsafeBufferPointer(rebasing: bytes[start..<end])
            return inlineMediaBytes.contains { type in
                type.count == media.count
                    && zip(type, media).allSatisfy { a, b in a == (b >= 0x41 && b <= 0x5a ? b | 0x20 : b) }
            }
        }
    }

    /// `inlineContentTypes` as bytes (the per-request check compares bytes, allocating nothing).
    static let inlineMediaBytes: [[UInt8]] = inlineContentTypes.map { Array($0.utf8) }

    /// `text` without the characters `drop` names at either end.
    static func trimmed(_ text: Substring, _ drop: (Character) -> Bool) -> String {
        guard let first = text.firstIndex(where: { !drop($0) }), let last = text.lastIndex(where: { !drop($0) })
        else { return "" }
        return String(text[first...last])
    }

    /// The `Content-Type` to serve for a stored one: itself, unless it is empty or holds a byte that
    /// does not belong in a header value (control characters, non-ASCII): then
    /// `application/octet-stream`.
    public static func servedContentType(_ stored: String) -> String {
        let fine = !stored.isEmpty && stored.utf8.count <= 255 && stored.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f }
        return fine ? stored : "application/octet-stream"
    }

    /// The `Content-Disposition` value: `inline; filename="a.jpg"` for a name in printable ASCII, else
    /// `attachment; filename="__.pdf"; filename*=UTF-8''%EC%82%AC%EC%A7%84.pdf` (RFC 6266, appendix D:
    /// the ASCII fallback first, for clients that cannot read RFC 5987's form and for those that stop at
    /// the first).
    public var contentDisposition: String {
        let fallback = Self.asciiFallback(filename)
        let plain = disposition.rawValue + "; filename=\"" + fallback + "\""
        return fallback == filename ? plain : plain + "; filename*=UTF-8''" + URIEncoding.encode(filename)
    }

    /// The `Cache-Control` value for a URL that lives `lifeSeconds`.
    public static func cacheControl(lifeSeconds: Int) -> String {
        "private, max-age=" + String(lifeSeconds) + ", immutable"
    }

    /// The `response-*` query parameters of a URL that lives `lifeSeconds` (raw: the signer encodes
    /// them once).
    public func query(lifeSeconds: Int) -> [(name: String, value: String)] {
        [
            ("response-cache-control", Self.cacheControl(lifeSeconds: lifeSeconds)),
            ("response-content-disposition", contentDisposition),
            ("response-content-type", contentType),
        ]
    }

    // MARK: - File names

    /// The longest file name offered, in UTF-8 bytes.
    public static let maxFilenameBytes = 200

    /// The name a download is offered under: the metadata's `filename` (a string member of the
    /// record's metadata object), else the object key's last segment, each sanitized; `download` when
    /// neither leaves anything.
    public static func filename(metadataJSON: String, objectKey: String) -> String {
        if let given = metadataFilename(metadataJSON) {
            let name = sanitizedName(given)
            if !name.isEmpty { return name }
        }
        let name = sanitizedName(objectKey)
        return name.isEmpty ? "download" : name
    }

    /// The `filename` member of a metadata object, when it is a string. The metadata is parsed only
    /// when its text can hold that member (the name, or an escape that could spell it).
    static func metadataFilename(_ metadataJSON: String) -> String? {
        guard mayHoldFilename(metadataJSON) else { return nil }
        do {
            let metadata = try JSONParser(limits: .init(maxDepth: 32, maxBytes: 64 * 1024)).parse(metadataJSON)
            return metadata["filename"]?.stringValue
        } catch {
            // Stored metadata was parsed when it was confirmed; text that does not parse now names no
            // file, and the key's segment stands in.
            return nil
        }
    }

    /// Whether `json` holds `filename` or a `\u` escape (which could spell it): a byte scan, much
    /// cheaper than `String.contains` on every read of a record.
    public static func mayHoldFilename(_ json: String) -> Bool {
        var json = json
        return json.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\\"):
                    if i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "u") { return true }
                case UInt8(ascii: "f"):
                    if bytes.count - i >= 8 && filenameBytes.indices.allSatisfy({ bytes[i + $0] == filenameBytes[$0] })
                    {
                        return true
                    }
                default: break
                }
                i += 1
            }
            return false
        }
    }

    /// `filename` as bytes.
    private static let filenameBytes: [UInt8] = Array("filename".utf8)

    /// `name`'s last path segment (after the last `/` or `\`) with control, line-separator and
    /// bidirectional-override characters removed, `"`, `;`, `\`, `/` and `%` replaced by `_`, spaces
    /// and dots trimmed from both ends (no `..`, no hidden name), at most `maxFilenameBytes` bytes.
    public static func sanitizedName(_ name: String) -> String {
        let scalars = name.unicodeScalars
        var start = scalars.startIndex
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let s = scalars[index]
            index = scalars.index(after: index)
            if s == "/" || s == "\\" { start = index }
        }
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for s in scalars[start...] {
            if isInvisible(s) { continue }
            let shown: Unicode.Scalar = s == "\"" || s == ";" || s == "%" ? "_" : s
            let size = UTF8.width(shown)
            if bytes + size > maxFilenameBytes { break }
            kept.append(shown)
            bytes += size
        }
        return trimmed(Substring(String(kept))) { $0 == " " || $0 == "." }
    }

    /// Characters that must not be in a file name: C0 and C1 controls, DEL, line and paragraph
    /// separators, zero-width and bidirectional formatting characters (which can make `gpj.exe` look
    /// like `exe.jpg`), the byte order mark.
    static func isInvisible(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0...0x1f, 0x7f...0x9f: return true
        case 0x200b...0x200f, 0x2028...0x202e, 0x2060...0x206f, 0xfeff: return true
        default: return false
        }
    }

    /// The plain `filename` parameter: printable ASCII only, each other character `_` (the quoted
    /// string holds no `"` or `\`: the sanitized name has none).
    static func asciiFallback(_ name: String) -> String {
        var out = String.UnicodeScalarView()
        for s in name.unicodeScalars {
            out.append(s.value >= 0x20 && s.value < 0x7f ? s : "_")
        }
        return String(out)
    }
}
