/// The `presign` section: lifetimes of issued URLs.
public struct PresignConfig: Sendable, Equatable {
    /// Default lifetime of an upload URL, in seconds (a type may set its own).
    public var expiresSeconds: Int
    /// Upload type used by `POST /presigned-url`, which names no type.
    public var defaultPostType: String
    /// The least life left on a signed GET URL of a record when it is answered, in seconds: the URL lives
    /// this long past the end of its window (`readUrlWindowSeconds`).
    public var readUrlExpiresSeconds: Int
    /// The window read URLs are signed in, in seconds: every read of a record within one window
    /// answers the same URL, signed at the window's start (0: signed at the current second).
    public var readUrlWindowSeconds: Int
    /// When set (not empty in the file), records are read at `cdnBaseUrl/key` instead of signed GET URLs.
    public var cdnBaseUrl: String?
    /// Sign `If-None-Match: *` into client B's upload URLs, so a store that supports conditional writes
    /// refuses to overwrite an existing object (the upload must send the header).
    public var signIfNoneMatch: Bool
    /// Whether client P's issue routes (`GET /presigned-url`, `GET /v1/storage/presigned-url`) are served.
    public var serveClientP: Bool
    /// What start-up does when client P's contract is served and the credentials carry a session
    /// token (which client P drops when it rebuilds the URL): refuse to start, or only warn.
    public enum TemporaryCredentialsRule: String, Sendable, CaseIterable {
        /// Exit 2 with the reason.
        case refuse
        /// Start, with a warning in the log.
        case warn
    }

    /// What start-up does when client P's contract meets credentials with a session token.
    public var temporaryCredentialsWithClientP: TemporaryCredentialsRule

    /// Presign settings; every argument defaults to the documented default.
    public init(
        expiresSeconds: Int = 600, defaultPostType: String = "IMAGE", readUrlExpiresSeconds: Int = 3600,
        cdnBaseUrl: String? = nil, signIfNoneMatch: Bool = false, serveClientP: Bool = true,
        temporaryCredentialsWithClientP: TemporaryCredentialsRule = .refuse, readUrlWindowSeconds: Int = 3600
    ) {
        self.readUrlWindowSeconds = readUrlWindowSeconds
        self.serveClientP = serveClientP
        self.temporaryCredentialsWithClientP = temporaryCredentialsWithClientP
        self.signIfNoneMatch = signIfNoneMatch
        self.expiresSeconds = expiresSeconds
        self.defaultPostType = defaultPostType
        self.readUrlExpiresSeconds = readUrlExpiresSeconds
        self.cdnBaseUrl = cdnBaseUrl
    }
}
