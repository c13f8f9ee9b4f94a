import Crypto
import HTTPClient
import System

extension S3Client {
    /// HeadObject: the object's size, type and ETag, or nil when there is no such key (404).
    public func head(key: String) throws(ObjectStoreError) -> ObjectInfo? {
        try perform("HEAD", key: key) { (response) throws(ObjectStoreError) -> ObjectInfo? in
            switch response.status {
            case 200: return try Self.objectInfo(from: response)
            case 404: return nil
            default: throw Self.statusError(response)
            }
        }
    }

    /// CopyObject within the bucket: `source` to `destination`, metadata copied (`COPY`), or
    /// replaced by `contentType` when given (`REPLACE`, which also drops `x-amz-meta-*`).
    ///
    /// With `expecting` (the source's HEAD result) the copy is conditional on the source's ETag
    /// (`x-amz-copy-source-if-match`, and RGW's `x-amz-copy-if-match`: a source overwritten since
    /// that HEAD fails with 412 `PreconditionFailed`) and the result is built from it and the new ETag; without it, the
    /// destination is read back with a HEAD. S3 may answer 200 with an `<Error>` body: that is a
    /// failure, `.status(200, code:)`.
    @discardableResult
    public func copy(
        from source: String, to destination: String, contentType: String? = nil, expecting: ObjectInfo? = nil
    )
        throws(ObjectStoreError) -> ObjectInfo
    {
        var copySource = [UInt8]()
        Self.appendURIEncoded("/" + options.bucket + "/", keepingSlash: true, to: &copySource)
        Self.appendURIEncoded(source, keepingSlash: true, to: &copySource)
        var headers: [(name: String, value: String)] = [
            ("x-amz-copy-source", String(decoding: copySource, as: UTF8.self))
        ]
        if let contentType {
            headers.append(("x-amz-metadata-directive", "REPLACE"))
            headers.append(("Content-Type", contentType))
        } else {
            headers.append(("x-amz-metadata-directive", "COPY"))
        }
        if let expecting {
            // The standard header, and the name Ceph RGW reads instead (Pacific 16.2 ignores the
            // standard one and copies whatever is there; measured, see docs/object-store.md).
            headers.append(("x-amz-copy-source-if-match", "\"\(expecting.etag)\""))
            headers.append(("x-amz-copy-if-match", "\"\(expecting.etag)\""))
        }
        let etag = try perform("PUT", key: destination, headers: headers) {
            (response) throws(ObjectStoreError) -> String in
            guard response.status == 200 else { throw Self.statusError(response) }
            let root = S3XML.rootElementName(response.body)
            if root == "Error" { throw .status(200, code: S3XML.errorCode(response.body)) }
            guard root == "CopyObjectResult", let etag = S3XML.firstElementText("ETag", in: response.body) else {
                throw .malformedResponse("a copy answered 200 without a CopyObjectResult ETag")
            }
            return Self.unquote(etag)
        }
        if let expecting {
            return ObjectInfo(size: expecting.size, contentType: contentType ?? expecting.contentType, etag: etag)
        }
        guard let copied = try head(key: destination) else {
            throw .malformedResponse("the copy of an object is missing right after the copy")
        }
        return copied
    }

    /// DeleteObject; a missing key is not an error (S3 answers 204 either way, some stores 404).
    public func delete(key: String) throws(ObjectStoreError) {
        try perform("DELETE", key: key) { (response) throws(ObjectStoreError) in
            guard response.status == 204 || response.status == 200 || response.status == 404 else {
                throw Self.statusError(response)
            }
        }
    }

    /// GetObject, the whole object or the inclusive byte `range` (`Range: bytes=a-b`, answered 206).
    ///
    /// The body is bounded by `maxResponseBytes`; `info.size` is the whole object's size.
    public func get(key: String, range: ClosedRange<Int64>? = nil) throws(ObjectStoreError)
        -> (bytes: [UInt8], info: ObjectInfo)
    {
        var headers: [(name: String, value: String)] = []
        if let range {
            precondition(range.lowerBound >= 0, "a byte range starts at 0 or later")
            headers.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound)"))
        }
        return try perform("GET", key: key, headers: headers) { (response) throws(ObjectStoreError) in
            guard response.status == 200 || response.status == 206 else { throw Self.statusError(response) }
            return (response.body, try Self.objectInfo(from: response))
        }
    }
}

extension S3Client {
    /// The most bytes `readPrefix` asks for in one request.
    public static let maxPrefixBytes = 1 << 20

    /// The first `maxBytes` bytes of the object under `key` (all of it when it is shorter), with the
    /// whole object's size, type and ETag: one GET with `Range: bytes=0-(maxBytes-1)`. Nil when there is
    /// no such key.
    ///
    /// S3 answers 206 with `Content-Range: bytes 0-(n-1)/size`; an object shorter than the range comes
    /// whole (still 206, or 200 from stores that answer so). A store that ignores `Range` and sends the
    /// whole object (200) is cut to `maxBytes` (its body is still bounded by `maxResponseBytes`). An
    /// empty object has no byte 0, so S3 answers 416 `InvalidRange`: it is read back with a HEAD, and
    /// its prefix is empty. A 206 whose `Content-Range` does not start at 0 or does not match its body
    /// is a malformed response.
    public func readPrefix(key: String, maxBytes: Int) throws(ObjectStoreError) -> ObjectPrefix? {
        precondition(maxBytes >= 1 && maxBytes <= Self.maxPrefixBytes, "readPrefix reads 1 byte to 1 MiB")
        let headers: [(name: String, value: String)] = [("Range", "bytes=0-\(maxBytes - 1)")]
        enum Answer {
            case prefix(ObjectPrefix)
            case missing
            case pastTheEnd
        }
        let answer = try perform("GET", key: key, headers: headers) { (response) throws(ObjectStoreError) -> Answer in
            switch response.status {
            case 206:
                let info = try Self.objectInfo(from: response)
                guard let range = response.header("Content-Range"), let span = Self.byteSpan(range),
                    span.first == 0, span.last - span.first + 1 == Int64(response.body.count),
                    response.body.count <= maxBytes, span.last < info.size
                else {
                    throw .malformedResponse("a ranged GET answered 206 with a Content-Range that does not match")
                }
                return .prefix(ObjectPrefix(bytes: response.body, info: info))
            case 200:
                let info = try Self.objectInfo(from: response)
                return .prefix(ObjectPrefix(bytes: Array(response.body.prefix(maxBytes)), info: info))
            case 404: return .missing
            case 416: return .pastTheEnd
            default: throw Self.statusError(response)
            }
        }
        switch answer {
        case .prefix(let prefix): return prefix
        case .missing: return nil
        case .pastTheEnd:
            // The range starts past the end, which only an empty object makes.
            guard let info = try head(key: key) else { return nil }
            return ObjectPrefix(bytes: [], info: info)
        }
    }

    /// The first and last byte of `bytes a-b/total` (a `Content-Range` of a 206), or nil.
    static func byteSpan(_ contentRange: String) -> (first: Int64, last: Int64)? {
        var text = Substring(contentRange).trimmingASCIISpaces()
        guard text.hasPrefix("bytes ") else { return nil }
        text = text.dropFirst(6)
        guard let dash = text.firstIndex(of: "-"), let slash = text.firstIndex(of: "/"), dash < slash,
            let first = Int64(text[..<dash]), let last = Int64(text[text.index(after: dash)..<slash]),
            first >= 0, last >= first
        else { return nil }
        return (first, last)
    }
}

extension S3Client {
    /// What a readiness probe of the bucket saw: the status of a signed HEAD of the bucket, S3's error
    /// code when it refused, and the server's clock from its `Date` header (also on a refusal, e.g.
    /// 403 `RequestTimeTooSkewed`).
    public struct BucketProbe: Sendable, Equatable {
        /// The HEAD's status: 200 when the bucket exists and the credentials may use it.
        public var status: Int
        /// The server's `Date`, in seconds since the Unix epoch, or nil when absent or unreadable.
        public var serverEpochSeconds: Int64?
        /// S3's error code (`SignatureDoesNotMatch`, `InvalidAccessKeyId`, `NoSuchBucket`) when the HEAD
        /// was refused and the store named the reason; nil on 200 or when no code could be learnt.
        public var errorCode: String? = nil
    }

    /// A signed HEAD of the bucket that reports the status, the error code and the server's clock
    /// instead of throwing on a non-200 answer; transport failures (no connection, timeout) still throw.
    ///
    /// A HEAD answer has no body, so it cannot carry S3's `<Code>`: after a refusal the bucket is asked
    /// once more with a GET (ListObjects of at most one key: the same permission as HeadBucket), whose
    /// error body names the reason. Only the code of that body is kept.
    public func probeBucket() throws(ObjectStoreError) -> BucketProbe {
        var probe = try perform("HEAD", key: "") { (response) throws(ObjectStoreError) -> BucketProbe in
            BucketProbe(
                status: response.status,
                serverEpochSeconds: response.header("Date").flatMap(IMFFixdate.epochSeconds))
        }
        if probe.status != 200 {
            let code = try? perform("GET", key: "", query: [("max-keys", "1")]) {
                (response) throws(ObjectStoreError) -> String? in
                response.status == 200 ? nil : S3XML.errorCode(response.body)
            }
            probe.errorCode = code ?? nil
        }
        return probe
    }
}
