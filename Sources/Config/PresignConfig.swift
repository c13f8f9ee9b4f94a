/// The `presign` section: lifetimes of issued URLs.
public struct PresignConfig: Sendable, Equatable {
    /// Default lifetime of an upload URL, in seconds (a type may set its own).
    public var expiresSeconds: Int
    /// Upload type used by `POST /presigned-url`, which names no type.
    public var defaultPostType: String
    /// Lifetime of the signed GET URLs returned with records, in seconds.
    public var readUrlExpiresSeconds: Int
    /// When set (not empty in the file), records are read at `cdnBaseUrl/key` instead of signed GET URLs.
    public var cdnBaseUrl: String?
    /// Sign `If-None-Match: *` into client B's upload URLs, so a store that supports conditional writes
    /// refuses to overwrite an existing object (the upload must send the header).
    public var signIfNoneMatch: Bool

    /// Presign settings; every argument defaults to the documented default.
    public init(
        expiresSeconds: Int = 600, defaultPostType: String = "IMAGE", readUrlExpiresSeconds: Int = 3600,
        cdnBaseUrl: String? = nil, signIfNoneMatch: Bool = false
    ) {
        self.signIfNoneMatch = signIfNoneMatch
        self.expiresSeconds = expiresSeconds
        self.defaultPostType = defaultPostType
        self.readUrlExpiresSeconds = readUrlExpiresSeconds
        self.cdnBaseUrl = cdnBaseUrl
    }
}
