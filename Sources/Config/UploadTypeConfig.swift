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

    /// Whether requests must carry a `chatroomId`.
    public var requiresChatroomId: Bool { chatroomId == .required }

    /// An upload type; `contentCheck` nil means on when every content type is one the check recognises.
    public init(
        name: String, extensions: [String], contentTypes: [String], keyTemplate: String,
        permanentKeyTemplate: String? = nil, maxBytes: Int64, expiresSeconds: Int = 600,
        chatroomId: ChatroomIdRule = .serverMade, contentCheck: Bool? = nil
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
    }

    /// The default of `contentCheck`: on for a type of images only, every one of a format the check knows.
    public static func checksByDefault(_ contentTypes: [String]) -> Bool {
        !contentTypes.isEmpty && contentTypes.allSatisfy(checkableContentTypes.contains)
    }
}
