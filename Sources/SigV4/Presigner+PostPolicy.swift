import Crypto

extension Presigner {
    /// The statuses S3 accepts in `success_action_status`.
    public static let successActionStatuses: Set<Int> = [200, 201, 204]

    /// Presigns a browser form upload (S3 POST Object with a SigV4 policy) at `now` (epoch seconds).
    ///
    /// The policy's conditions, in this order (botocore's, so its `generate_presigned_post` gives the
    /// same document, base64 and signature): `{"Content-Type"}`, `["content-length-range", min, max]`,
    /// `{"success_action_status"}` (each when asked for), `{"bucket"}`, `{"key"}` or
    /// `["starts-with", "$key", prefix]`, `{"x-amz-algorithm": "AWS4-HMAC-SHA256"}`,
    /// `{"x-amz-credential"}`, `{"x-amz-date"}`, and `{"x-amz-security-token"}` for temporary
    /// credentials. `policy` is the document in base64, and `x-amz-signature` the hex HMAC-SHA256
    /// of that base64 text with the day's signing key (SigV4 task 3; there is no canonical request).
    public func presignPost(_ request: PresignPostRequest, now: Int64) throws(SigV4Error) -> PresignedPost {
        guard (1...604_800).contains(request.expires) else { throw .invalidExpiry(request.expires) }
        try BucketName.validate(request.bucket)
        let keyField: String
        var conditions: [PostPolicy.Condition] = []
        switch request.key {
        case .exact(let key):
            try ObjectKey.validate(key, allowingEmpty: false)
            keyField = key
        case .prefix(let prefix):
            try ObjectKey.validate(prefix + "f", allowingEmpty: false)
            keyField = prefix + "${filename}"
        }
        if let contentType = request.contentType {
            guard !contentType.isEmpty, contentType.utf8.count <= 256,
                contentType.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7e })
            else { throw .invalidHeader(name: "Content-Type", reason: "1 to 256 printable ASCII characters") }
            conditions.append(.equals("Content-Type", contentType))
        }
        if let range = request.contentLength {
            guard range.lowerBound >= 0 else {
                throw .invalidHeader(name: "content-length-range", reason: "a size is not negative")
            }
            conditions.append(.contentLengthRange(range.lowerBound, range.upperBound))
        }
        if let status = request.successActionStatus {
            guard Self.successActionStatuses.contains(status) else {
                throw .invalidHeader(name: "success_action_status", reason: "\(status) is not 200, 201 or 204")
            }
            conditions.append(.equals("success_action_status", String(status)))
        }
        conditions.append(.equals("bucket", request.bucket))
        switch request.key {
        case .exact(let key): conditions.append(.equals("key", key))
        case .prefix(let prefix): conditions.append(.startsWith("key", prefix))
        }

        let date = AmzDate(epochSeconds: now)
        var timestamp = [UInt8]()
        date.appendTimestamp(to: &timestamp)
        let amzDate = String(decoding: timestamp, as: UTF8.self)
        var day = [UInt8]()
        date.appendDay(to: &day)
        let credential = accessKeyId + "/" + String(decoding: day + scopeSuffix, as: UTF8.self)
        conditions.append(.equals("x-amz-algorithm", "AWS4-HMAC-SHA256"))
        conditions.append(.equals("x-amz-credential", credential))
        conditions.append(.equals("x-amz-date", amzDate))
        if let sessionToken { conditions.append(.equals("x-amz-security-token", sessionToken.unredacted)) }

        let expiresAt = min(now + Int64(request.expires), AmzDate.maximumEpochSeconds)
        let document = PostPolicy(expiration: expiresAt, conditions: conditions).json
        let policy = Base64.encode(document)
        let signature = keyCache.key(for: date).authenticate(policy)

        var fields: [(name: String, value: String)] = [("key", keyField)]
        if let contentType = request.contentType { fields.append(("Content-Type", contentType)) }
        if let status = request.successActionStatus { fields.append(("success_action_status", String(status))) }
        fields.append(("x-amz-algorithm", "AWS4-HMAC-SHA256"))
        fields.append(("x-amz-credential", credential))
        fields.append(("x-amz-date", amzDate))
        if let sessionToken { fields.append(("x-amz-security-token", sessionToken.unredacted)) }
        fields.append(("policy", policy))
        fields.append(("x-amz-signature", signature.hex))

        let virtual = usesVirtualHosting(request.bucket)
        var url = schemePrefix
        appendHost(bucket: request.bucket, virtual: virtual, to: &url)
        appendPath(bucket: request.bucket, key: "", virtual: virtual, to: &url)
        return PresignedPost(
            url: String(decoding: url, as: UTF8.self), fields: fields,
            policyDocument: String(decoding: document, as: UTF8.self), expiresAt: expiresAt)
    }
}
