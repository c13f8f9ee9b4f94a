import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One part URL of the native multipart API: PUT exactly `size` bytes to `url`.
public struct SignedPart: Sendable, Equatable, Codable {
    public var partNumber: Int
    public var url: String
    public var size: Int64
}

/// `POST /uploads`' answer: the upload and every part URL, signed up front.
public struct NativeUploadCreated: Sendable, Equatable, Codable {
    public var uploadId: String
    public var key: String
    public var size: Int64
    public var partSize: Int64
    public var parts: [SignedPart]
    /// When the earliest URL expires (ISO 8601).
    public var expiresAt: String
}

/// `POST /uploads/{uploadId}/sign`'s answer.
public struct SignedParts: Sendable, Equatable, Codable {
    public var parts: [SignedPart]
    public var expiresAt: String
}

/// `GET /uploads/{uploadId}`: where the upload is, by the server's word.
public struct NativeUploadStatus: Sendable, Equatable, Codable {
    /// `uploading`, `completed`, `aborted` or `expired`.
    public var state: String
    public var size: Int64
    public var partSize: Int64
    public var receivedBytes: Int64
    public var contiguousBytes: Int64
    public var missingParts: [Int]
    /// Why the server aborted the upload, when it did.
    public var reason: String?
    /// The record, once completed (by the app or by the server).
    public var record: ImageRecord?
}

/// `POST /uploads/{uploadId}/complete`'s answer.
struct NativeUploadCompleted: Decodable {
    var record: ImageRecord
}

extension PresignClient {
    private func uploadsPath(_ id: String) -> String { "/uploads/" + Self.queryValue(id) }

    /// `POST /uploads`: a multipart upload of `size` bytes with every part URL signed at once (the part
    /// size the server's unless `partSize` is given).
    public func createUpload(
        type: String?, contentType: String, filename: String?, size: Int64, partSize: Int64? = nil,
        checksumSHA256: String? = nil
    ) async throws -> NativeUploadCreated {
        var body: [String: Any] = ["contentType": contentType, "size": size]
        if let type { body["type"] = type }
        if let filename { body["filename"] = filename }
        if let partSize { body["partSize"] = partSize }
        if let checksumSHA256 { body["checksumSHA256"] = checksumSHA256 }
        let (data, _) = try await call("POST", "/uploads", json: body)
        return try decode(NativeUploadCreated.self, data)
    }

    /// `GET /uploads/{uploadId}`.
    public func uploadStatus(_ uploadId: String) async throws -> NativeUploadStatus {
        let (data, _) = try await call("GET", uploadsPath(uploadId))
        return try decode(NativeUploadStatus.self, data)
    }

    /// `POST /uploads/{uploadId}/sign`: fresh URLs of `parts`, or (nil) of the parts storage lacks.
    public func signUploadParts(_ uploadId: String, parts: [Int]?) async throws -> SignedParts {
        let body: [String: Any] = parts.map { ["parts": $0] } ?? ["missing": true]
        let (data, _) = try await call("POST", uploadsPath(uploadId) + "/sign", json: body)
        return try decode(SignedParts.self, data)
    }

    /// `POST /uploads/{uploadId}/complete`: the record (the same again once completed).
    public func completeUpload(_ uploadId: String) async throws -> ImageRecord {
        let (data, _) = try await call("POST", uploadsPath(uploadId) + "/complete", json: [String: Any]())
        return try decode(NativeUploadCompleted.self, data).record
    }

    /// `DELETE /uploads/{uploadId}`.
    public func abortUpload(_ uploadId: String) async throws {
        _ = try await call("DELETE", uploadsPath(uploadId))
    }
}
