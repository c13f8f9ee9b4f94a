import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PresignClient {
    /// The most ids one `readURLs(for:)` request carries (the server's limit).
    public static let maxReadURLBatch = 100

    /// `GET /images/{id}/url`: the record's stable read URL; `disposition: .attachment` asks for a
    /// download (another URL), `.inline` for a type that is not shown in place is a 422.
    public func readURL(for id: String, disposition: ReadDisposition? = nil) async throws -> ReadURL {
        let query = disposition.map { "?disposition=\($0.rawValue)" } ?? ""
        let (data, _) = try await call("GET", "/images/\(Self.queryValue(id))/url" + query)
        return try decode(ReadURL.self, data)
    }

    /// `POST /images/urls`: the read URLs of many records for a list screen, in as few requests as
    /// the server's limit allows (100 ids each); an id repeated (in either case) is asked once, under
    /// its first spelling.
    public func readURLs(for ids: [String]) async throws -> ReadURLBatch {
        var seen = Set<String>()
        let distinct = ids.filter { seen.insert($0.lowercased()).inserted }
        var batch = ReadURLBatch(urls: [:], missing: [])
        var start = 0
        while start < distinct.count {
            let chunk = Array(distinct[start..<min(start + Self.maxReadURLBatch, distinct.count)])
            let (data, _) = try await call("POST", "/images/urls", json: ["ids": chunk])
            let part = try decode(ReadURLBatch.self, data)
            batch.urls.merge(part.urls) { first, _ in first }
            batch.missing += part.missing
            start += chunk.count
        }
        return batch
    }

    /// The request of `GET /images/{id}/content` with this client's credentials: a fixed app URL that
    /// answers 302 to the record's stable read URL, for an image view that takes a request (e.g.
    /// Kingfisher with a request modifier adding these headers). The redirect is cacheable until a
    /// minute before the URL expires.
    public func contentRequest(for id: String, disposition: ReadDisposition? = nil) throws -> URLRequest {
        let query = disposition.map { "?disposition=\($0.rawValue)" } ?? ""
        var request = try apiRequest("GET", "/images/\(Self.queryValue(id))/content" + query)
        request.setValue(nil, forHTTPHeaderField: "Accept")
        return request
    }

    /// Downloads record `id`'s object to `file` (replaced if it exists) through its read URL asked as
    /// an attachment, straight to disk (never held in memory); returns the bytes written and the
    /// storage's `Content-Type`.
    public func download(id: String, to file: URL) async throws -> (bytes: Int64, contentType: String?) {
        let read = try await readURL(for: id, disposition: .attachment)
        var request = URLRequest(url: try ExactURL.make(read.url))
        request.httpMethod = "GET"
        request.timeoutInterval = configuration.requestTimeout
        return try await Self.downloadToFile(request, file)
    }

    /// GETs `request` with a download task into `file`; a non-2xx answer becomes `.storage` with the
    /// code of its XML body.
    static func downloadToFile(_ request: URLRequest, _ file: URL) async throws -> (bytes: Int64, contentType: String?)
    {
        try Task.checkCancellation()
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let box = Transport.TaskBox()
        return try await withTaskCancellationHandler {
            try await download(request, file, session: session, box: box)
        } onCancel: {
            box.cancel()
        }
    }

    /// The download task of `downloadToFile`, registered in `box` for cancellation.
    private static func download(_ request: URLRequest, _ file: URL, session: URLSession, box: Transport.TaskBox)
        async throws -> (bytes: Int64, contentType: String?)
    {
        try await withCheckedThrowingContinuation { continuation in
            let task = session.downloadTask(with: request) { location, response, error in
                if let error {
                    continuation.resume(throwing: PresignClientError.from(error))
                    return
                }
                guard let http = response as? HTTPURLResponse, let location else {
                    continuation.resume(throwing: PresignClientError.invalidResponse("no HTTP response"))
                    return
                }
                do {
                    guard (200..<300).contains(http.statusCode) else {
                        let body = (try? Data(contentsOf: location)) ?? Data()
                        throw StorageErrorBody.error(status: http.statusCode, body: body)
                    }
                    let manager = FileManager.default
                    if manager.fileExists(atPath: file.path) { try manager.removeItem(at: file) }
                    try manager.moveItem(at: location, to: file)
                    let size = (try manager.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
                    continuation.resume(returning: (size, http.value(forHTTPHeaderField: "Content-Type")))
                } catch let e as PresignClientError {
                    continuation.resume(throwing: e)
                } catch {
                    continuation.resume(
                        throwing: PresignClientError.file("\(file.path): \(error.localizedDescription)"))
                }
            }
            box.set(task)
            task.resume()
        }
    }
}
