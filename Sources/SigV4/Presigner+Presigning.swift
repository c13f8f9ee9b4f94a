import Crypto

extension Presigner {
    /// Presigns `request` at `now` (epoch seconds).
    ///
    /// The URL's query is in the fixed order client P rebuilds (`X-Amz-Algorithm, X-Amz-Date,
    /// X-Amz-SignedHeaders, X-Amz-Credential, X-Amz-Expires, (X-Amz-Security-Token,)
    /// X-Amz-Signature`) after any extra parameters; the canonical query that is signed is sorted.
    /// Every value is URI-encoded, so no value holds a raw `=`, `&` or `/`.
    public func presign(_ request: PresignRequest, now: Int64) throws(SigV4Error) -> PresignedURL {
        var scratch = [UInt8]()
        return try presign(request, now: now, canonicalRequest: &scratch)
    }

    /// `presign`, also leaving the canonical request and the string to sign in `buffer`, separated by
    /// the `AWS4-HMAC-SHA256` line (for tests and diagnostics).
    func presign(_ request: PresignRequest, now: Int64, canonicalRequest buffer: inout [UInt8]) throws(SigV4Error)
        -> PresignedURL
    {
        guard (1...604_800).contains(request.expires) else { throw .invalidExpiry(request.expires) }
        try Self.validateMethod(request.method)
        try BucketName.validate(request.bucket)
        try ObjectKey.validate(request.key, allowingEmpty: false)
        let virtual = usesVirtualHosting(request.bucket)
        let date = AmzDate(epochSeconds: now)

        // Headers: `host` alone (the common case) needs no list.
        var headers: [CanonicalHeader] = []
        var signedNames: [UInt8] = Array("host".utf8)
        var encodedSignedNames: [UInt8] = signedNames
        let virtualHost: String? = virtual ? request.bucket + "." + endpoint.authority : nil
        if !request.signedHeaders.isEmpty {
            headers = try CanonicalHeader.canonicalize(
                request.signedHeaders, host: virtualHost ?? endpoint.authority)
            signedNames = []
            encodedSignedNames = []
            for (index, header) in headers.enumerated() {
                if index > 0 {
                    signedNames.append(UInt8(ascii: ";"))
                    encodedSignedNames.append(contentsOf: [UInt8(ascii: "%"), UInt8(ascii: "3"), UInt8(ascii: "B")])
                }
                signedNames.append(utf8: header.name)
                encodedSignedNames.append(utf8: header.name)
            }
        }
        let extraQuery = request.query.isEmpty ? [] : try Self.encodeQuery(request.query)

        // SigV4 task 1: the canonical request.
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(512 + request.key.utf8.count * 3 + request.signedHeaders.count * 128)
        buffer.append(utf8: request.method)
        buffer.append(UInt8(ascii: "\n"))
        let pathStart = buffer.count
        appendPath(bucket: request.bucket, key: request.key, virtual: virtual, to: &buffer)
        let pathEnd = buffer.count
        buffer.append(UInt8(ascii: "\n"))
        if extraQuery.isEmpty {
            appendCanonicalAuthQuery(
                date: date, expires: request.expires, encodedSignedNames: encodedSignedNames, to: &buffer)
        } else {
            var pairs = extraQuery
            pairs.append(
                contentsOf: authQueryPairs(date: date, expires: request.expires, encodedSignedNames: encodedSignedNames)
            )
            Self.appendSortedQuery(pairs, to: &buffer)
        }
        buffer.append(UInt8(ascii: "\n"))
        if headers.isEmpty {
            buffer.append(utf8: "host:")
            if let virtualHost { buffer.append(utf8: virtualHost) } else { buffer.append(contentsOf: authority) }
            buffer.append(UInt8(ascii: "\n"))
        } else {
            for header in headers {
                buffer.append(utf8: header.name)
                buffer.append(UInt8(ascii: ":"))
                buffer.append(utf8: header.value)
                buffer.append(UInt8(ascii: "\n"))
            }
        }
        buffer.append(UInt8(ascii: "\n"))
        buffer.append(contentsOf: signedNames)
        buffer.append(utf8: "\nUNSIGNED-PAYLOAD")

        // Tasks 2 to 4: string to sign, signature.
        let signature = sign(canonicalRequestIn: &buffer, from: 0, date: date)

        // The URL, in client P's order.
        var url = [UInt8]()
        url.reserveCapacity(pathEnd - pathStart + 400 + (encodedSessionToken?.count ?? 0) + request.bucket.utf8.count)
        url.append(contentsOf: schemePrefix)
        if let virtualHost { url.append(utf8: virtualHost) } else { url.append(contentsOf: authority) }
        buffer.withUnsafeBufferPointer {
            url.append(contentsOf: UnsafeBufferPointer(rebasing: $0[pathStart..<pathEnd]))
        }
        url.append(UInt8(ascii: "?"))
        for pair in extraQuery {
            url.append(contentsOf: pair.name)
            url.append(UInt8(ascii: "="))
            url.append(contentsOf: pair.value)
            url.append(UInt8(ascii: "&"))
        }
        url.append(utf8: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=")
        date.appendTimestamp(to: &url)
        url.append(utf8: "&X-Amz-SignedHeaders=")
        url.append(contentsOf: encodedSignedNames)
        url.append(utf8: "&X-Amz-Credential=")
        appendEncodedCredential(day: date, to: &url)
        url.append(utf8: "&X-Amz-Expires=")
        url.append(decimal: request.expires)
        if let encodedSessionToken {
            url.append(utf8: "&X-Amz-Security-Token=")
            url.append(contentsOf: encodedSessionToken)
        }
        url.append(utf8: "&X-Amz-Signature=")
        signature.appendHex(to: &url)

        let sendHeaders = headers.compactMap { header in
            header.name == "host" ? nil : (name: header.displayName, value: header.value)
        }
        return PresignedURL(
            url: String(decoding: url, as: UTF8.self), headers: sendHeaders, expiresAt: now + Int64(request.expires))
    }

    /// The canonical (sorted) query of the authentication parameters alone: Algorithm, Credential,
    /// Date, Expires, Security-Token, SignedHeaders.
    private func appendCanonicalAuthQuery(
        date: AmzDate, expires: Int, encodedSignedNames: [UInt8], to output: inout [UInt8]
    ) {
        output.append(utf8: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=")
        appendEncodedCredential(day: date, to: &output)
        output.append(utf8: "&X-Amz-Date=")
        date.appendTimestamp(to: &output)
        output.append(utf8: "&X-Amz-Expires=")
        output.append(decimal: expires)
        if let encodedSessionToken {
            output.append(utf8: "&X-Amz-Security-Token=")
            output.append(contentsOf: encodedSessionToken)
        }
        output.append(utf8: "&X-Amz-SignedHeaders=")
        output.append(contentsOf: encodedSignedNames)
    }

    /// The authentication parameters as encoded pairs, to be sorted with extra parameters.
    private func authQueryPairs(date: AmzDate, expires: Int, encodedSignedNames: [UInt8]) -> [(
        name: [UInt8], value: [UInt8]
    )] {
        var credential = [UInt8]()
        appendEncodedCredential(day: date, to: &credential)
        var timestamp = [UInt8]()
        date.appendTimestamp(to: &timestamp)
        var lifetime = [UInt8]()
        lifetime.append(decimal: expires)
        var pairs: [(name: [UInt8], value: [UInt8])] = [
            (Array("X-Amz-Algorithm".utf8), Array("AWS4-HMAC-SHA256".utf8)),
            (Array("X-Amz-Credential".utf8), credential),
            (Array("X-Amz-Date".utf8), timestamp),
            (Array("X-Amz-Expires".utf8), lifetime),
            (Array("X-Amz-SignedHeaders".utf8), encodedSignedNames),
        ]
        if let encodedSessionToken { pairs.append((Array("X-Amz-Security-Token".utf8), encodedSessionToken)) }
        return pairs
    }
}
