import Crypto

extension Presigner {
    /// Presigns `request` at `now` (epoch seconds).
    ///
    /// The URL's query is in the fixed order client P rebuilds (`X-Amz-Algorithm, X-Amz-Date,
    /// X-Amz-SignedHeaders, X-Amz-Credential, X-Amz-Expires, (X-Amz-Security-Token,)
    /// X-Amz-Signature`) after any extra parameters; the canonical query that is signed is sorted.
    /// Every value is URI-encoded, so no value holds a raw `=`, `&` or `/`.
    public func presign(_ request: PresignRequest, now: Int64) throws(SigV4Error) -> PresignedURL {
        try presign(request, now: now, inspect: nil)
    }

    /// `presign`, showing `inspect` the canonical request and the string to sign.
    ///
    /// The canonical request and the string to sign are written into one temporary block sized in
    /// advance from the input lengths, and the URL straight into its `String`: with only `host`
    /// signed, that `String` is the one heap allocation (counted with valgrind).
    func presign(_ request: PresignRequest, now: Int64, inspect: ((String, String) -> Void)?) throws(SigV4Error)
        -> PresignedURL
    {
        guard (1...604_800).contains(request.expires) else { throw .invalidExpiry(request.expires) }
        try Self.validateMethod(request.method)
        try BucketName.validate(request.bucket)
        try ObjectKey.validate(request.key, allowingEmpty: false)
        let headers = request.signedHeaders.isEmpty ? [] : try CanonicalHeader.canonicalize(request.signedHeaders)
        let extraQuery = request.query.isEmpty ? [] : try Self.encodeQuery(request.query)
        let virtual = usesVirtualHosting(request.bucket)
        let date = AmzDate(epochSeconds: now)

        // Upper bounds of what is written; every input length is in them.
        var headerBytes = 0
        for header in headers { headerBytes += 5 * header.name.utf8.count + header.value.utf8.count + 8 }
        var queryBytes = 0
        for pair in extraQuery { queryBytes += pair.name.count + pair.value.count + 2 }
        let hostBytes = authority.count + (virtual ? request.bucket.utf8.count + 1 : 0)
        let pathBytes =
            2 + URIEncoding.maximumEncodedCount(request.bucket) + URIEncoding.maximumEncodedCount(request.key)
        let queryFixedBytes =
            160 + credentialPrefix.count + encodedScopeSuffix.count + (encodedSessionToken?.count ?? 0) + 20
            + headerBytes + queryBytes
        let canonicalBytes =
            request.method.utf8.count + pathBytes + queryFixedBytes + hostBytes + headerBytes + 64
            + stringToSignMaximumCount
        let urlBytes = schemePrefix.count + hostBytes + pathBytes + queryFixedBytes + 128

        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: canonicalBytes) { memory in
            // SigV4 task 1: the canonical request.
            var canonical = ByteWriter(memory)
            canonical.write(utf8: request.method)
            canonical.write(UInt8(ascii: "\n"))
            let pathStart = canonical.count
            appendPath(bucket: request.bucket, key: request.key, virtual: virtual, to: &canonical)
            let pathEnd = canonical.count
            canonical.write(UInt8(ascii: "\n"))
            if extraQuery.isEmpty {
                appendCanonicalAuthQuery(date: date, expires: request.expires, headers: headers, to: &canonical)
            } else {
                // No extra name starts with `X-Amz-` (`encodeQuery` refuses them) and the
                // authentication names all do, so none sorts between two of them: the sorted query is
                // the extras before `X-Amz-`, the authentication block, then the other extras.
                if Self.appendSortedPairs(extraQuery, beforeAuth: true, separated: false, to: &canonical) {
                    canonical.write(UInt8(ascii: "&"))
                }
                appendCanonicalAuthQuery(date: date, expires: request.expires, headers: headers, to: &canonical)
                _ = Self.appendSortedPairs(extraQuery, beforeAuth: false, separated: true, to: &canonical)
            }
            canonical.write(UInt8(ascii: "\n"))
            var hostWritten = false
            for header in headers {
                if !hostWritten && !header.sortsBeforeHost {
                    appendHostLine(bucket: request.bucket, virtual: virtual, to: &canonical)
                    hostWritten = true
                }
                canonical.write(utf8: header.name)
                canonical.write(UInt8(ascii: ":"))
                canonical.write(utf8: header.value)
                canonical.write(UInt8(ascii: "\n"))
            }
            if !hostWritten { appendHostLine(bucket: request.bucket, virtual: virtual, to: &canonical) }
            canonical.write(UInt8(ascii: "\n"))
            Self.appendSignedNames(headers, separator: ";", to: &canonical)
            canonical.write(ascii: "\nUNSIGNED-PAYLOAD")

            // Tasks 2 to 4: string to sign, signature.
            let signature = sign(canonicalRequestIn: &canonical, date: date, inspect: inspect)

            // The URL, in client P's order.
            let url = String(unsafeUninitializedCapacity: urlBytes) { memory in
                var url = ByteWriter(memory)
                url.write(schemePrefix)
                appendHost(bucket: request.bucket, virtual: virtual, to: &url)
                url.write(UnsafeBufferPointer(rebasing: canonical.buffer[pathStart..<pathEnd]))
                url.write(UInt8(ascii: "?"))
                for pair in extraQuery {
                    url.write(pair.name)
                    url.write(UInt8(ascii: "="))
                    url.write(pair.value)
                    url.write(UInt8(ascii: "&"))
                }
                url.write(ascii: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=")
                date.appendTimestamp(to: &url)
                url.write(ascii: "&X-Amz-SignedHeaders=")
                Self.appendSignedNames(headers, separator: "%3B", to: &url)
                url.write(ascii: "&X-Amz-Credential=")
                appendEncodedCredential(day: date, to: &url)
                url.write(ascii: "&X-Amz-Expires=")
                url.write(decimal: request.expires)
                if let encodedSessionToken {
                    url.write(ascii: "&X-Amz-Security-Token=")
                    url.write(encodedSessionToken)
                }
                url.write(ascii: "&X-Amz-Signature=")
                url.write(hex: signature)
                return url.count
            }
            let sendHeaders = headers.map { (name: $0.displayName, value: $0.value) }
            return PresignedURL(url: url, headers: sendHeaders, expiresAt: now + Int64(request.expires))
        }
    }

    /// Writes `host:<host>\n`.
    private func appendHostLine(bucket: String, virtual: Bool, to output: inout ByteWriter) {
        output.write(ascii: "host:")
        appendHost(bucket: bucket, virtual: virtual, to: &output)
        output.write(UInt8(ascii: "\n"))
    }

    /// Writes the signed header names, `host` in its sorted place, joined by `separator`.
    static func appendSignedNames(_ headers: [CanonicalHeader], separator: StaticString, to output: inout some ByteSink)
    {
        var hostWritten = false
        var first = true
        for header in headers {
            if !hostWritten && !header.sortsBeforeHost {
                if !first { output.write(ascii: separator) }
                output.write(ascii: "host")
                hostWritten = true
                first = false
            }
            if !first { output.write(ascii: separator) }
            output.write(utf8: header.name)
            first = false
        }
        if !hostWritten {
            if !first { output.write(ascii: separator) }
            output.write(ascii: "host")
        }
    }

    /// The canonical (sorted) query of the authentication parameters alone: Algorithm, Credential,
    /// Date, Expires, Security-Token, SignedHeaders.
    private func appendCanonicalAuthQuery(
        date: AmzDate, expires: Int, headers: [CanonicalHeader], to output: inout ByteWriter
    ) {
        output.write(ascii: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=")
        appendEncodedCredential(day: date, to: &output)
        output.write(ascii: "&X-Amz-Date=")
        date.appendTimestamp(to: &output)
        output.write(ascii: "&X-Amz-Expires=")
        output.write(decimal: expires)
        if let encodedSessionToken {
            output.write(ascii: "&X-Amz-Security-Token=")
            output.write(encodedSessionToken)
        }
        output.write(ascii: "&X-Amz-SignedHeaders=")
        Self.appendSignedNames(headers, separator: "%3B", to: &output)
    }

    /// The prefix of every authentication parameter's name.
    private static let authPrefix: [UInt8] = Array("X-Amz-".utf8)

    /// Whether `a` sorts before `b`, byte by byte (`lexicographicallyPrecedes`, without its generic
    /// iterators).
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                let common = min(a.count, b.count)
                var i = 0
                while i < common {
                    if a[i] != b[i] { return a[i] < b[i] }
                    i += 1
                }
                return a.count < b.count
            }
        }
    }

    /// Writes, in ascending order of their encoded names, the `pairs` whose names sort before
    /// `X-Amz-` (`beforeAuth`) or after it, as `name=value` joined by `&` (and one `&` before the first
    /// when `separated`); whether any was written. Names are distinct (`encodeQuery`), and few: each
    /// next pair is found by a scan, which allocates nothing.
    static func appendSortedPairs(
        _ pairs: [(name: [UInt8], value: [UInt8])], beforeAuth: Bool, separated: Bool, to output: inout ByteWriter
    ) -> Bool {
        var previous = -1
        var wrote = false
        while true {
            var next = -1
            for i in pairs.indices {
                let name = pairs[i].name
                guard precedes(name, authPrefix) == beforeAuth else { continue }
                if previous >= 0 && !precedes(pairs[previous].name, name) { continue }
                if next >= 0 && !precedes(name, pairs[next].name) { continue }
                next = i
            }
            guard next >= 0 else { return wrote }
            if wrote || separated { output.write(UInt8(ascii: "&")) }
            output.write(pairs[next].name)
            output.write(UInt8(ascii: "="))
            output.write(pairs[next].value)
            wrote = true
            previous = next
        }
    }
}
