import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of a presignd server: asks for upload URLs, uploads with exactly what the server returned,
/// confirms, lists, reads and deletes records, and uploads large files in parts (`MultipartUploader`).
///
/// Foundation and URLSession only (no server module), for iOS, macOS and Linux.
public final class PresignClient: Sendable {
    /// Where the server is and who the caller is.
    public struct Configuration: Sendable {
        /// The server's base URL, e.g. `http://127.0.0.1:8080` (a path prefix is kept).
        public var serverURL: URL
        /// Sent as `Authorization: Bearer …` to our API (never to storage).
        public var bearerToken: String?
        /// More headers for our API (never to storage), e.g. `["X-User-Id": "42"]` for `auth.mode = dev`.
        public var headers: [String: String]
        /// The prefix of the Uppy-Companion-shaped multipart routes.
        public var multipartPrefix: String
        /// Time-out of a request without progress, in seconds.
        public var requestTimeout: TimeInterval

        public init(
            serverURL: URL, bearerToken: String? = nil, headers: [String: String] = [:],
            multipartPrefix: String = "/s3", requestTimeout: TimeInterval = 60
        ) {
            self.serverURL = serverURL
            self.bearerToken = bearerToken
            self.headers = headers
            self.multipartPrefix = multipartPrefix
            self.requestTimeout = requestTimeout
        }
    }

    public let configuration: Configuration
    let transport: Transport

    /// A client with its own URLSession (`sessionConfiguration`, ephemeral by default).
    public init(
        configuration: Configuration, sessionConfiguration: URLSessionConfiguration = .ephemeral
    ) {
        self.configuration = configuration
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        transport = Transport(configuration: sessionConfiguration)
    }

    deinit { transport.invalidate() }

    // MARK: - Our API

    /// A request to our API: `path` (with its query, already encoded) under the server URL.
    func apiRequest(_ method: String, _ pathAndQuery: String, json: Any? = nil) throws -> URLRequest {
        var base = configuration.serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + pathAndQuery) else {
            throw PresignClientError.invalidResponse("cannot make a URL of \(base + pathAndQuery)")
        }
        var r = URLRequest(url: url)
        r.httpMethod = method
        r.setValue("application/json", forHTTPHeaderField: "Accept")
        if let t = configuration.bearerToken { r.setValue("Bearer \(t)", forHTTPHeaderField: "Authorization") }
        for (k, v) in configuration.headers { r.setValue(v, forHTTPHeaderField: k) }
        if let json {
            r.httpBody = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            r.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return r
    }

    /// Sends an API request and returns the body of a 2xx; other statuses become `.server`.
    func call(_ method: String, _ pathAndQuery: String, json: Any? = nil) async throws -> (Data, Int) {
        let request = try apiRequest(method, pathAndQuery, json: json)
        let (data, response) = try await transport.send(request, body: .none)
        guard (200..<300).contains(response.statusCode) else {
            throw ServerErrorBody.error(status: response.statusCode, body: data)
        }
        return (data, response.statusCode)
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw PresignClientError.invalidResponse(
                "\(T.self): \(error) in \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
    }

    /// Percent-encodes a query value (RFC 3986 unreserved characters stay).
    static func queryValue(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// Client P's form: `GET /presigned-url?type=&ext=` (a URL signed for `host` only, and for what is
    /// declared: the size as `Content-Length`, the digests the server's storage checks).
    public func uploadURL(
        type: String, ext: String, chatroomId: String? = nil, declaring declared: Declaration = Declaration()
    ) async throws -> UploadTicket {
        try await uploadURL(type: type, ext: ext, chatroomId: chatroomId, path: "/presigned-url", declared: declared)
    }

    /// The GET form on `path` (`/presigned-url`, or client P's `/v1/storage/presigned-url`).
    func uploadURL(
        type: String, ext: String, chatroomId: String?, path: String, declared: Declaration = Declaration()
    ) async throws -> UploadTicket {
        var q = "type=\(Self.queryValue(type))&ext=\(Self.queryValue(ext))"
        if let chatroomId { q += "&chatroomId=\(Self.queryValue(chatroomId))" }
        for (name, value) in declared.members { q += "&\(name)=\(Self.queryValue(value))" }
        let (data, _) = try await call("GET", path + "?" + q)
        struct Answer: Decodable {
            var presignedUrl: String
            var key: String
            var method: String
            var headers: [String: String]?
            var expiresAt: String?
        }
        let a = try decode(Answer.self, data)
        return UploadTicket(
            method: a.method, url: a.presignedUrl, headers: a.headers ?? [:], key: a.key, expiresAt: a.expiresAt)
    }

    /// Client B's form: `POST /presigned-url {contentType, imageKey}` (a URL that signs the content
    /// type, the length when `size` is given, and the digests declared that the server's storage checks).
    /// `imageKey` defaults to a new UUID.
    public func uploadURL(
        contentType: String, imageKey: String = UUID().uuidString, type: String? = nil, size: Int64? = nil,
        checksumSHA256: String? = nil, contentMD5: String? = nil
    ) async throws -> UploadTicket {
        var body: [String: Any] = ["contentType": contentType, "imageKey": imageKey]
        if let type { body["type"] = type }
        if let size { body["size"] = size }
        if let checksumSHA256 { body["checksumSHA256"] = checksumSHA256 }
        if let contentMD5 { body["contentMD5"] = contentMD5 }
        let (data, _) = try await call("POST", "/presigned-url", json: body)
        struct Answer: Decodable {
            var signedUrl: String
            var key: String
            var imageKey: String
            var method: String
            var headers: [String: String]?
            var expiresAt: String?
        }
        let a = try decode(Answer.self, data)
        return UploadTicket(
            method: a.method, url: a.signedUrl, headers: a.headers ?? [:], key: a.key, imageKey: a.imageKey,
            expiresAt: a.expiresAt)
    }

    /// `POST /images`: confirms the upload of `imageKey` (a ticket's `confirmKey`) and returns the record.
    public func confirm(imageKey: String, metadata: [String: String]? = nil) async throws -> ImageRecord {
        var body: [String: Any] = ["imageKey": imageKey]
        if let metadata { body["metadata"] = metadata }
        let (data, _) = try await call("POST", "/images", json: body)
        return try decode(ImageRecord.self, data)
    }

    /// `GET /images?type=&limit=&cursor=`: one page of the caller's records, newest first.
    public func images(type: String? = nil, limit: Int? = nil, cursor: String? = nil) async throws -> ImagePage {
        var q: [String] = []
        if let type { q.append("type=\(Self.queryValue(type))") }
        if let limit { q.append("limit=\(limit)") }
        if let cursor { q.append("cursor=\(Self.queryValue(cursor))") }
        let (data, _) = try await call("GET", "/images" + (q.isEmpty ? "" : "?" + q.joined(separator: "&")))
        return try decode(ImagePage.self, data)
    }

    /// `GET /images/{id}`: one of the caller's records, with a fresh URL.
    public func image(id: String) async throws -> ImageRecord {
        let (data, _) = try await call("GET", "/images/\(Self.queryValue(id))")
        return try decode(ImageRecord.self, data)
    }

    /// `DELETE /images/{id}`: deletes the object and the record.
    public func deleteImage(id: String) async throws {
        _ = try await call("DELETE", "/images/\(Self.queryValue(id))")
    }

    // MARK: - Storage

    /// The storage request for a presigned URL: `URL(string:)` of the exact string (refused when that
    /// would change a byte), the method, and exactly the given headers. Nothing else is added.
    public static func storageRequest(method: String, url: String, headers: [String: String], contentLength: Int64)
        throws -> URLRequest
    {
        var r = URLRequest(url: try ExactURL.make(url))
        r.httpMethod = method
        for (k, v) in headers { r.setValue(v, forHTTPHeaderField: k) }
        // S3 needs a length (no chunked PUT); FoundationNetworking would otherwise stream without one.
        if r.value(forHTTPHeaderField: "Content-Length") == nil {
            r.setValue(String(contentLength), forHTTPHeaderField: "Content-Length")
        }
        return r
    }

    /// Uploads `data` with the ticket's method, URL and headers.
    ///
    /// `contentType` is sent only when the ticket names no Content-Type (the GET form signs `host` only,
    /// so the caller says what it uploads); the ticket's own headers always win.
    public func upload(
        _ data: Data, with ticket: UploadTicket, contentType: String? = nil, progress: ProgressHandler? = nil
    ) async throws -> UploadResponse {
        let r = try Self.storageRequest(
            method: ticket.method, url: ticket.url, headers: Self.headers(ticket, contentType),
            contentLength: Int64(data.count))
        return try await put(r, body: .data(data), progress: progress)
    }

    /// Uploads the file at `file` from the file (never read into memory: `uploadTask(fromFile:)`).
    public func upload(
        fileAt file: URL, with ticket: UploadTicket, contentType: String? = nil, progress: ProgressHandler? = nil
    ) async throws -> UploadResponse {
        let size = try Self.fileSize(file)
        let r = try Self.storageRequest(
            method: ticket.method, url: ticket.url, headers: Self.headers(ticket, contentType), contentLength: size)
        return try await put(r, body: .file(file), progress: progress)
    }

    /// The ticket's headers, plus `contentType` when the ticket has no Content-Type of its own.
    static func headers(_ ticket: UploadTicket, _ contentType: String?) -> [String: String] {
        var h = ticket.headers
        if let contentType, !h.keys.contains(where: { $0.lowercased() == "content-type" }) {
            h["Content-Type"] = contentType
        }
        return h
    }

    func put(_ request: URLRequest, body: Transport.Body, progress: ProgressHandler?) async throws -> UploadResponse {
        let (data, response) = try await transport.send(request, body: body, progress: progress)
        guard (200..<300).contains(response.statusCode) else {
            throw StorageErrorBody.error(status: response.statusCode, body: data)
        }
        return UploadResponse(status: response.statusCode, etag: response.value(forHTTPHeaderField: "ETag"))
    }

    static func fileSize(_ file: URL) throws -> Int64 {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch {
            throw PresignClientError.file("\(file.path): \(error.localizedDescription)")
        }
    }

    // MARK: - The whole flow

    /// Asks for a URL (POST form) declaring the file's size, SHA-256 and MD5 (read from the file first,
    /// `Digests.of`; `checksums: false` declares the size alone), uploads the file from disk with
    /// exactly the ticket's headers and confirms it: one call for a small file. The server proves the
    /// digests before it records the upload, and the record holds the SHA-256.
    public func uploadAndConfirm(
        fileAt file: URL, contentType: String, type: String? = nil, metadata: [String: String]? = nil,
        checksums: Bool = true, progress: ProgressHandler? = nil
    ) async throws -> ImageRecord {
        let declared = try Declaration.of(file: file, checksums: checksums)
        let ticket = try await uploadURL(
            contentType: contentType, type: type, size: declared.size, checksumSHA256: declared.checksumSHA256,
            contentMD5: declared.contentMD5)
        _ = try await upload(fileAt: file, with: ticket, progress: progress)
        return try await confirm(imageKey: ticket.confirmKey, metadata: metadata)
    }
}
