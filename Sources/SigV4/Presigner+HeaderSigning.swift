import Crypto

extension Presigner {
    /// The payload hash S3 accepts when the body is not hashed.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// Signs one of the server's own requests (HEAD, GET with `range`, COPY with
    /// `x-amz-copy-source`, DELETE, multipart calls) with an `Authorization` header.
    ///
    /// Signed: `host`, `x-amz-date`, `x-amz-content-sha256` (`payloadHash`, or `UNSIGNED-PAYLOAD`
    /// when nil), `x-amz-security-token` for temporary credentials, and every header in `headers`.
    /// `query` holds raw parameters (e.g. `uploadId`); `key` may be empty for a bucket-level request.
    public func signHeaders(
        method: String, bucket: String, key: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], payloadHash: String? = nil, now: Int64
    ) throws(SigV4Error) -> SignedRequest {
        try signHeaders(
            method: method, bucket: bucket, key: key, query: query, headers: headers, payloadHash: payloadHash,
            now: now, root: false,
            inspect: nil)
    }

    /// `signHeaders`, showing `inspect` the canonical request and the string to sign; with `root` the
    /// request is for the endpoint's own path `/` (no bucket, no key: a service call such as RGW's topics).
    func signHeaders(
        method: String, bucket: String, key: String, query: [(name: String, value: String)],
        headers extraHeaders: [(name: String, value: String)], payloadHash: String?, now: Int64, root: Bool = false,
        inspect: ((String, String) -> Void)?
    ) throws(SigV4Error) -> SignedRequest {
        try Self.validateMethod(method)
        if !root {
            try BucketName.validate(bucket)
            try ObjectKey.validate(key, allowingEmpty: true)
        }
        let payload = payloadHash ?? Self.unsignedPayload
        guard payload == Self.unsignedPayload || Self.isLowerHexSHA256(payload) else {
            throw .invalidPayloadHash(payload)
        }
        let virtual = !root && usesVirtualHosting(bucket)
        let host = virtual ? bucket + "." + endpoint.authority : endpoint.authority
        let date = AmzDate(epochSeconds: now)
        var timestamp = [UInt8]()
        date.appendTimestamp(to: &timestamp)
        let amzDate = String(decoding: timestamp, as: UTF8.self)

        var canonicalHeaders = try CanonicalHeader.canonicalize(extraHeaders)
        canonicalHeaders.append(CanonicalHeader(trustedName: "host", value: host))
        canonicalHeaders.append(CanonicalHeader(trustedName: "x-amz-date", value: amzDate))
        canonicalHeaders.append(CanonicalHeader(trustedName: "x-amz-content-sha256", value: payload))
        if let sessionToken {
            canonicalHeaders.append(
                CanonicalHeader(trustedName: "x-amz-security-token", value: sessionToken.unredacted))
        }
        CanonicalHeader.sort(&canonicalHeaders)
        let signedNames = canonicalHeaders.map(\.name).joined(separator: ";")
        let encodedQuery = try Self.encodeQuery(query)

        // SigV4 task 1: the canonical request.
        var path = [UInt8]()
        if root {
            path.append(UInt8(ascii: "/"))
        } else {
            appendPath(bucket: bucket, key: key, virtual: virtual, to: &path)
        }
        var queryText = [UInt8]()
        CanonicalRequest.appendQuery(encodedQuery, to: &queryText)
        var buffer = [UInt8]()
        CanonicalRequest.append(
            method: method, canonicalURI: path, encodedQuery: encodedQuery,
            headers: canonicalHeaders.map { (name: $0.name, value: $0.value) }, signedNames: signedNames,
            payload: payload, to: &buffer)

        // Tasks 2 to 4.
        let end = buffer.count
        let hash = buffer.withUnsafeBytes { SHA256.hash($0) }
        appendStringToSign(date: date, canonicalRequestHash: hash, to: &buffer)
        let signingKey = keyCache.key(for: date)
        let signature = buffer.withUnsafeBytes { signingKey.authenticate(UnsafeRawBufferPointer(rebasing: $0[end...])) }
        inspect?(String(decoding: buffer[..<end], as: UTF8.self), String(decoding: buffer[end...], as: UTF8.self))
        var day = [UInt8]()
        date.appendDay(to: &day)
        let scope = String(decoding: day + scopeSuffix, as: UTF8.self)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(accessKeyId)/\(scope), SignedHeaders=\(signedNames), Signature=\(signature.hex)"

        var sendHeaders: [(name: String, value: String)] = [
            ("Host", host), ("X-Amz-Date", amzDate), ("X-Amz-Content-SHA256", payload),
        ]
        if let sessionToken { sendHeaders.append(("X-Amz-Security-Token", sessionToken.unredacted)) }
        for header in canonicalHeaders where !Self.signerHeaderNames.contains(header.name) {
            sendHeaders.append((header.displayName, header.value))
        }
        sendHeaders.append(("Authorization", authorization))

        var target = String(decoding: path, as: UTF8.self)
        if !queryText.isEmpty { target += "?" + String(decoding: queryText, as: UTF8.self) }
        return SignedRequest(
            method: method, url: endpoint.scheme + "://" + host + target, target: target, headers: sendHeaders)
    }

    /// The headers `signHeaders` sets itself (listed first in its result).
    private static let signerHeaderNames: Set<String> = [
        "host", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token",
    ]

    /// True for 64 lower-case hexadecimal digits.
    private static func isLowerHexSHA256(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
            }
    }
}
