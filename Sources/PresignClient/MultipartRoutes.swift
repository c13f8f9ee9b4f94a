import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A multipart upload as the server created it.
public struct MultipartUpload: Sendable, Equatable, Codable {
    public var key: String
    public var uploadId: String
    public var bucket: String?
}

/// One part as the server lists it (`ListParts`).
public struct ListedPart: Sendable, Equatable, Codable {
    public var PartNumber: Int
    public var ETag: String
    public var Size: Int64?
    public var LastModified: String?
}

/// What completion answered: where the object is (`key` is its permanent key once promoted) and the
/// record the server made for it (as `POST /images` makes it), when it sent one.
public struct CompletedUpload: Sendable, Equatable, Codable {
    public var location: String?
    public var key: String
    public var bucket: String?
    public var record: ImageRecord?
}

/// The Uppy-Companion-shaped multipart routes (under `configuration.multipartPrefix`, default `/s3`).
extension PresignClient {
    private func mp(_ rest: String) -> String { configuration.multipartPrefix + "/multipart" + rest }
    private func keyQuery(_ key: String) -> String { "key=" + Self.queryValue(key) }

    /// `POST /s3/multipart {filename, type, metadata}`: a new upload (its key and upload id).
    ///
    /// A server that does not serve the multipart routes answers the router's 404 `NOT_FOUND` ("no
    /// such route"); that refusal keeps its status and code (`isMultipartNotServed`) and its message
    /// says what the server lacks: `uppy.enabled`.
    ///
    /// `declaring` sends the file's size (refused at once over the type's limit or the owner's quota,
    /// before any part) and its SHA-256 (proven by the server at completion).
    public func createMultipart(
        filename: String, contentType: String, metadata: [String: String] = [:],
        declaring declared: Declaration = Declaration()
    ) async throws -> MultipartUpload {
        var body: [String: Any] = ["filename": filename, "type": contentType, "metadata": metadata]
        if let size = declared.size { body["size"] = size }
        if let sha256 = declared.checksumSHA256 { body["checksumSHA256"] = sha256 }
        if let md5 = declared.contentMD5 { body["contentMD5"] = md5 }
        let data: Data
        do {
            (data, _) = try await call("POST", mp(""), json: body)
        } catch let error as PresignClientError where error.status == 404 && error.serverCode == "NOT_FOUND" {
            throw PresignClientError.server(
                status: 404, code: "NOT_FOUND",
                message: "the server does not serve the multipart routes (POST \(mp("")): no such route); a "
                    + "file sent in parts needs uppy.enabled=true (PRESIGN_UPPY_ENABLED=true) on the server")
        }
        return try decode(MultipartUpload.self, data)
    }

    /// `GET /s3/multipart/{uploadId}/{partNumber}?key=[&md5=]`: a presigned UploadPart URL, signing the
    /// part's `Content-MD5` when `md5` (base64) is given and the server's storage checks it.
    public func signPart(_ upload: MultipartUpload, partNumber: Int, md5: String? = nil) async throws -> String {
        let digest = md5.map { "&md5=" + Self.queryValue($0) } ?? ""
        let (data, _) = try await call(
            "GET", mp("/\(Self.queryValue(upload.uploadId))/\(partNumber)?\(keyQuery(upload.key))\(digest)"))
        struct Answer: Decodable { var url: String }
        return try decode(Answer.self, data).url
    }

    /// `GET /s3/multipart/{uploadId}/batch?key=&partNumbers=1,2,3[&md5=m1,m2,m3]`: several part URLs at
    /// once; `md5s`, when given, holds one base64 MD5 per part number, in their order.
    public func signParts(_ upload: MultipartUpload, partNumbers: [Int], md5s: [String] = []) async throws
        -> [Int: String]
    {
        let numbers = partNumbers.map(String.init).joined(separator: ",")
        let digests = md5s.isEmpty ? "" : "&md5=" + Self.queryValue(md5s.joined(separator: ","))
        let (data, _) = try await call(
            "GET",
            mp("/\(Self.queryValue(upload.uploadId))/batch?\(keyQuery(upload.key))&partNumbers=\(numbers)\(digests)"))
        struct Answer: Decodable { var presignedUrls: [String: String] }
        let a = try decode(Answer.self, data)
        var out: [Int: String] = [:]
        for (k, v) in a.presignedUrls {
            if let n = Int(k) { out[n] = v }
        }
        return out
    }

    /// `GET /s3/multipart/{uploadId}?key=`: the parts storage holds (every page).
    public func listParts(_ upload: MultipartUpload) async throws -> [ListedPart] {
        let (data, _) = try await call("GET", mp("/\(Self.queryValue(upload.uploadId))?\(keyQuery(upload.key))"))
        return try decode([ListedPart].self, data)
    }

    /// `POST /s3/multipart/{uploadId}/complete?key= {parts}`: completes the upload.
    public func completeMultipart(_ upload: MultipartUpload, parts: [(number: Int, etag: String)]) async throws
        -> CompletedUpload
    {
        let list = parts.sorted { $0.number < $1.number }.map {
            ["PartNumber": $0.number, "ETag": $0.etag] as [String: Any]
        }
        let (data, _) = try await call(
            "POST", mp("/\(Self.queryValue(upload.uploadId))/complete?\(keyQuery(upload.key))"),
            json: ["parts": list])
        return try decode(CompletedUpload.self, data)
    }

    /// `DELETE /s3/multipart/{uploadId}?key=`: aborts the upload.
    public func abortMultipart(_ upload: MultipartUpload) async throws {
        _ = try await call("DELETE", mp("/\(Self.queryValue(upload.uploadId))?\(keyQuery(upload.key))"))
    }

    /// PUTs one part (bytes in memory) to its presigned URL; returns the part's ETag from the response
    /// headers (an answer without one is an error: completion needs it).
    public func uploadPart(_ data: Data, url: String, progress: ProgressHandler? = nil) async throws -> String {
        let r = try Self.storageRequest(method: "PUT", url: url, headers: [:], contentLength: Int64(data.count))
        let response = try await put(r, body: .data(data), progress: progress)
        guard let etag = response.etag, !etag.isEmpty else {
            throw PresignClientError.invalidResponse(
                "storage sent no ETag header for a part (a bucket CORS rule must expose ETag to browsers)")
        }
        return etag
    }

    /// PUTs one part, `length` bytes of `file` from `offset`, to its presigned URL (the bytes go from
    /// the file: see `PartBody` for how, and what is held in memory), with its `Content-MD5` when `md5` is
    /// given (storage refuses other bytes: `BadDigest`); returns the part's ETag.
    public func uploadPart(
        fileAt file: URL, offset: Int64, length: Int, url: String, md5: String? = nil, progress: ProgressHandler? = nil
    ) async throws -> String {
        let headers = md5.map { ["Content-MD5": $0] } ?? [:]
        let r = try Self.storageRequest(method: "PUT", url: url, headers: headers, contentLength: Int64(length))
        let response = try await put(r, body: .filePart(file, offset: offset, length: length), progress: progress)
        guard let etag = response.etag, !etag.isEmpty else {
            throw PresignClientError.invalidResponse(
                "storage sent no ETag header for a part (a bucket CORS rule must expose ETag to browsers)")
        }
        return etag
    }
}
