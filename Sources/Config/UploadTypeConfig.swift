/// One upload type (`PROFILE`, `IMAGE`, …): what may be uploaded and under which object key.
///
/// Templates are made of lower-case literal characters `[a-z0-9/_.-]` and the variables
/// `{userId}`, `{uuid}`, `{epochMillis}`, `{ext}`, `{chatroomId}`, `{imageKey}` and `{filename}` (the multipart routes' file name as a slug).
public struct UploadTypeConfig: Sendable, Equatable {
    /// Where the `{chatroomId}` of a key comes from.
    public enum ChatroomIdRule: String, Sendable, Equatable, CaseIterable {
        /// The request's `chatroomId` when it sends one; otherwise the server makes a UUID for the segment
        /// (client P's own server did so: its app never sends a chatroomId).
        case serverMade = "server-made"
        /// Every request must carry `chatroomId` (422 without it).
        case required
    }

    /// How a confirmation proves a declared checksum that storage did not prove itself (docs/object-store.md,
    /// "Integrity").
    public enum VerifyChecksum: String, Sendable, Equatable, CaseIterable {
        /// presignd reads the object from storage and hashes it (bounded memory): the bytes pass through
        /// the server, only for uploads that declared a checksum storage did not prove.
        case read
        /// presignd reads nothing: a digest counts as proven only when storage checked it at upload
        /// (`s3.checksums` names it and the URL signed it) or returned it; otherwise the record holds none.
        case trustStore = "trust-store"
    }

    /// Whether a confirmed upload of the type is scanned for malware before it is published
    /// (docs/scanning.md).
    public enum ScanMode: String, Sendable, Equatable, CaseIterable {
        /// Not scanned: the record is published at confirmation.
        case off
        /// Scanned by clamd (`scan.clamdAddress`): the record is `scanning` until its scan settles it.
        case clamav
    }

    /// The media types the content check recognises (the formats of the ImageProbe module).
    public static let checkableContentTypes: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif",
    ]

    /// The name clients send (`type=PROFILE`).
    public var name: String
    /// Accepted file extensions, lower case; empty means the type takes no `ext`.
    public var extensions: [String]
    /// Accepted content types, lower case.
    public var contentTypes: [String]
    /// Template of the object key a URL is issued for.
    public var keyTemplate: String
    /// Template of the key the object is copied to on confirmation; nil (empty in the file) means no
    /// promotion.
    public var permanentKeyTemplate: String?
    /// Largest accepted object, in bytes.
    public var maxBytes: Int64
    /// Lifetime of an upload URL of this type, in seconds.
    public var expiresSeconds: Int
    /// Where `{chatroomId}` comes from: the request, or a UUID the server makes when the request has none.
    public var chatroomId: ChatroomIdRule
    /// Whether confirmation reads the object's first bytes and records only an image of an allowed format
    /// (docs/content-check.md).
    public var contentCheck: Bool
    /// How a declared checksum storage did not prove is proven at confirmation (`read`, the default, or
    /// `trust-store`).
    public var verifyChecksum: VerifyChecksum
    /// Whether a confirmation of an upload that declared no SHA-256 computes one (reading the object)
    /// so that the record holds it.
    public var computeSha256: Bool
    /// Whether a confirmation whose proven SHA-256 equals a record of the same owner and type answers
    /// that record (`deduplicated`) and deletes the new object instead of recording it.
    public var dedup: Bool
    /// Whether a confirmed upload is scanned before it is published (`clamav`) or published at once
    /// (`off`, the default).
    public var scan: ScanMode

    /// Whether requests must carry a `chatroomId`.
    public var requiresChatroomId: Bool { chatroomId == .required }

    /// An upload type; `contentCheck` nil means on when every content type is one the check recognises.
    public init(
        name: String, extensions: [String], contentTypes: [String], keyTemplate: String,
        permanentKeyTemplate: String? = nil, maxBytes: Int64, expiresSeconds: Int = 600,
        chatroomId: ChatroomIdRule = .serverMade, contentCheck: Bool? = nil, verifyChecksum: VerifyChecksum = .read,
        computeSha256: Bool = false, dedup: Bool = false, scan: ScanMode = .off
    ) {
        self.name = name
        self.extensions = extensions
        self.contentTypes = contentTypes
        self.keyTemplate = keyTemplate
        self.permanentKeyTemplate = permanentKeyTemplate
        self.maxBytes = maxBytes
        self.expiresSeconds = expiresSeconds
        self.chatroomId = chatroomId
        self.contentCheck = contentCheck ?? Self.checksByDefault(contentTypes)
        self.verifyChecksum = verifyChecksum
        self.computeSha256 = computeSha256
        self.dedup = dedup
        self.scan = scan
    }

    /// Whether every content type of the type is an image's (`image/…`): an upload of it is never empty.
    public var holdsImages: Bool { !contentTypes.isEmpty && contentTypes.allSatisfy { $0.hasPrefix("image/") } }

    /// The default of `contentCheck`: on for a type of images only, every one of a format the check knows.
    public static func checksByDefault(_ contentTypes: [String]) -> Bool {
        !contentTypes.isEmpty && contentTypes.allSatisfy(checkableContentTypes.contains)
    }
}
