import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A record's read URL (`GET /images/{id}/url`): stable within the server's window, so an image cache
/// keyed on the URL (URLCache, Kingfisher, SDWebImage) keeps the image (docs/read-urls.md).
public struct ReadURL: Sendable, Equatable, Codable {
    /// The signed GET URL (or the CDN URL), exactly as the server sent it: load it as it is.
    public var url: String
    /// When the URL stops working (RFC 3339); nil for a CDN URL.
    public var expiresAt: String?
    /// The `Content-Type` storage answers with (nil in a batch answer).
    public var contentType: String?
    /// `inline` or `attachment`, signed into the URL (nil for a CDN URL and in a batch answer).
    public var disposition: String?

    public init(url: String, expiresAt: String?, contentType: String? = nil, disposition: String? = nil) {
        self.url = url
        self.expiresAt = expiresAt
        self.contentType = contentType
        self.disposition = disposition
    }

    /// `expiresAt` as a date (nil for a CDN URL).
    public var expiresAtDate: Date? {
        guard let expiresAt else { return nil }
        let whole = ISO8601DateFormatter()
        if let date = whole.date(from: expiresAt) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: expiresAt)
    }
}

/// The answer of `POST /images/urls`: the URLs of the caller's records by id (as sent), and the ids
/// that name none of them (another user's, deleted, unknown).
public struct ReadURLBatch: Sendable, Equatable, Codable {
    public var urls: [String: ReadURL]
    public var missing: [String]
}

/// How storage is asked to serve a record: shown in place (raster images only) or downloaded.
public enum ReadDisposition: String, Sendable, Codable {
    case inline
    case attachment
}
