import System

extension S3Client {
    /// The most keys ListObjectsV2 answers per page (S3's maximum).
    public static let maxKeysPerPage = 1000

    /// ListObjectsV2: one page (at most `maxKeys`, 1 to 1000) of the objects whose keys start with
    /// `prefix`, continuing after `continuationToken` (from the previous page's `nextContinuationToken`).
    ///
    /// For the reconciler: a bounded sweep pages on while `isTruncated`. Idempotent, retried. A page that
    /// claims to be truncated without a token, or holds more than `maxKeys` objects, is `.malformedResponse`.
    public func listObjects(prefix: String, continuationToken: String? = nil, maxKeys: Int = maxKeysPerPage)
        throws(ObjectStoreError) -> ObjectListPage
    {
        precondition((1...Self.maxKeysPerPage).contains(maxKeys), "ListObjectsV2 asks for 1 to 1000 keys")
        var query: [(name: String, value: String)] = [
            ("list-type", "2"), ("prefix", prefix), ("max-keys", String(maxKeys)),
        ]
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        return try perform("GET", key: "", query: query) { (response) throws(ObjectStoreError) -> ObjectListPage in
            guard response.status == 200 else { throw Self.statusError(response) }
            return try ListingXML.page(response.body, maxKeys: maxKeys)
        }
    }

    /// The ETag S3 gives an object completed from parts with these ETags (quoted or not):
    /// `hex(md5(concat(binary md5 of each part)))-N`, unquoted; nil when a part's ETag is not an MD5
    /// (SSE-KMS, checksums), or for no parts.
    public static func compositeETag(partETags: [String]) -> String? {
        guard !partETags.isEmpty else { return nil }
        return multipartETag(partETags)
    }

    /// True when `object` is what completing an upload of these parts (in this order) makes: its ETag is
    /// the composite of theirs. What a retried completion checks after storage completed the upload and
    /// the answer was lost (ListParts then says `NoSuchUpload`).
    public static func isCompletion(_ object: ObjectInfo, ofParts partETags: [String]) -> Bool {
        guard let expected = compositeETag(partETags: partETags) else { return false }
        return unquote(object.etag) == expected
    }
}

/// Reads ListObjectsV2 answers. Pure.
enum ListingXML {
    /// A ListBucketResult page that was asked for at most `maxKeys` objects.
    static func page(_ body: [UInt8], maxKeys: Int) throws(ObjectStoreError) -> ObjectListPage {
        let root = S3XML.rootElementName(body)
        guard root == "ListBucketResult" else {
            throw .malformedResponse("expected <ListBucketResult>, got <\(root ?? "nothing")>")
        }
        var objects: [ObjectListPage.Object] = []
        for element in try MultipartXML.elements("Contents", in: body, limit: maxKeys) {
            guard let key = S3XML.firstElementText("Key", in: element), !key.isEmpty,
                let size = S3XML.firstElementText("Size", in: element).flatMap({ Int64($0) }), size >= 0,
                let etag = S3XML.firstElementText("ETag", in: element),
                let modified = S3XML.firstElementText("LastModified", in: element).flatMap(
                    ISO8601Timestamp.epochSeconds)
            else { throw .malformedResponse("ListObjectsV2: a Contents without Key, Size, ETag or LastModified") }
            objects.append(.init(key: key, size: size, etag: S3Client.unquote(etag), lastModified: modified))
        }
        let truncated: Bool
        switch S3XML.firstElementText("IsTruncated", in: body) {
        case nil, "false": truncated = false
        case "true": truncated = true
        case let other?: throw .malformedResponse("IsTruncated is \(other.prefix(16)), not true or false")
        }
        guard truncated else { return ObjectListPage(objects: objects, nextContinuationToken: nil) }
        guard let token = S3XML.firstElementText("NextContinuationToken", in: body), !token.isEmpty else {
            throw .malformedResponse("ListObjectsV2: truncated without a NextContinuationToken")
        }
        return ObjectListPage(objects: objects, nextContinuationToken: token)
    }
}
