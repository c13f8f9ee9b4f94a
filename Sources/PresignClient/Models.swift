import Foundation

/// What the server answered to an issue request: the exact URL to PUT to, the method and the headers
/// the upload must send, and the keys to confirm it with.
public struct UploadTicket: Sendable, Equatable, Codable {
    /// `PUT` for every native route.
    public var method: String
    /// The presigned URL, exactly as the server sent it. Never rebuild it: its query is signed
    /// byte for byte (`%2F` in `X-Amz-Credential` must stay `%2F`).
    public var url: String
    /// Headers the upload must carry (Content-Type, and Content-Length / Content-MD5 when signed).
    public var headers: [String: String]
    /// The object key.
    public var key: String
    /// The UUID the caller chose (POST form), nil for the GET form.
    public var imageKey: String?
    /// When the URL stops working (RFC 3339), when the server said.
    public var expiresAt: String?

    public init(
        method: String, url: String, headers: [String: String], key: String, imageKey: String? = nil,
        expiresAt: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.key = key
        self.imageKey = imageKey
        self.expiresAt = expiresAt
    }

    /// The key `POST /images` takes for this upload: the imageKey (POST form) or the object key (GET form).
    public var confirmKey: String { imageKey ?? key }
}

/// A record of a confirmed upload (`POST /images`, `GET /images/{id}`).
public struct ImageRecord: Sendable, Equatable, Codable {
    public var id: String
    public var imageKey: String
    public var key: String
    public var type: String
    public var contentType: String
    public var size: Int64
    public var etag: String
    public var createdAt: String
    /// A fresh signed GET URL (or the CDN URL); nil when the server has none.
    public var url: String?
    /// The SHA-256 of the object's bytes (base64) the server proved (or computed) at confirmation; nil
    /// when it has none.
    public var sha256: String?
    /// True when the confirmation answered an earlier record of the same bytes (the type deduplicates).
    public var deduplicated: Bool

    enum CodingKeys: String, CodingKey {
        case id, imageKey, key, type, contentType, size, etag, createdAt, url, sha256, deduplicated
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        imageKey = try c.decode(String.self, forKey: .imageKey)
        key = try c.decode(String.self, forKey: .key)
        type = try c.decode(String.self, forKey: .type)
        contentType = try c.decode(String.self, forKey: .contentType)
        size = try c.decode(Int64.self, forKey: .size)
        etag = try c.decode(String.self, forKey: .etag)
        createdAt = try c.decode(String.self, forKey: .createdAt)
        url = try c.decodeIfPresent(String.self, forKey: .url)
        sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
        deduplicated = try c.decodeIfPresent(Bool.self, forKey: .deduplicated) ?? false
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(imageKey, forKey: .imageKey)
        try c.encode(key, forKey: .key)
        try c.encode(type, forKey: .type)
        try c.encode(contentType, forKey: .contentType)
        try c.encode(size, forKey: .size)
        try c.encode(etag, forKey: .etag)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(url, forKey: .url)
        try c.encodeIfPresent(sha256, forKey: .sha256)
        if deduplicated { try c.encode(true, forKey: .deduplicated) }
    }
}

/// One page of `GET /images`.
public struct ImagePage: Sendable, Equatable, Codable {
    public var items: [ImageRecord]
    public var nextCursor: String?
}

/// Bytes sent so far and the total, reported while a body goes out.
public struct TransferProgress: Sendable, Equatable {
    public var bytesSent: Int64
    public var totalBytes: Int64

    public init(bytesSent: Int64, totalBytes: Int64) {
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
    }

    /// 0…1 (1 for an empty body).
    public var fraction: Double { totalBytes > 0 ? Double(bytesSent) / Double(totalBytes) : 1 }
}

/// Called with progress (from a URLSession queue, possibly often).
public typealias ProgressHandler = @Sendable (TransferProgress) -> Void

/// What storage answered to a successful PUT.
public struct UploadResponse: Sendable, Equatable {
    public var status: Int
    /// The ETag header (quoted as storage sent it), nil when the store sent none.
    public var etag: String?
}
