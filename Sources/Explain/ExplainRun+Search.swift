import Crypto
import SigV4

extension ExplainRun {
    /// Where a reading puts the bucket and which host it signs.
    enum Form: Equatable {
        /// The URL's own host (or the client's `Host` header) and path.
        case asSent
        /// The server's endpoint, path-style: `authority/bucket/key`.
        case path
        /// The server's endpoint, virtual-hosted: `bucket.authority/key`.
        case virtual
    }

    /// One reading of the client's request: as sent, or with some of its parts repaired.
    struct Reading {
        var method = "PUT"
        var form = Form.asSent
        /// Decode the path twice (undo a second encoding).
        var pathTwice = false
        /// Decode values holding `%25XX` twice.
        var queryTwice = false
        /// Use the server's credential scope.
        var serverCredential = false
        /// Keep only the issued parameters, once each, and restore the algorithm, credential and token.
        var repaired = false
        /// `X-Amz-SignedHeaders` when the URL lost it.
        var signedHeaders: String?
        /// `X-Amz-Expires` when the URL lost it.
        var expires: String?
        /// The `content-type` value to sign instead of the client's.
        var contentType: String?
        /// The dimensions changed from the request as sent.
        var changes: Set<Dimension> = []
    }

    /// What a reading signs.
    struct Signed {
        var canonicalRequest: String
        var stringToSign: String
        /// Nil when a signed header's value is unknown.
        var signature: SHA256Digest?
        var expected: SignatureExplanation.Expected
    }

    /// The search's result.
    struct Outcome {
        /// The first reading whose signature is the URL's.
        var matched: Reading?
        /// True when some reading could be signed and compared with the URL's signature.
        var verifiable: Bool
        /// True when missing parameters had to be filled in (so the URL as sent cannot match).
        var filledIn: Bool
        /// Findings that only the match tells (another method, another content type).
        var confirmations: [ExplainFinding]
        /// What the server signs: the match, or the request as sent with the server's scope.
        var expected: SignatureExplanation.Expected?
        /// The canonical request of `expected`, token not redacted (for comparing with storage's).
        var rawCanonical: String?
    }

    /// The server's credential scope for the URL's day.
    func serverCredential(day: String) -> String {
        "\(presigner.accessKeyId)/\(day)/\(presigner.region)/\(presigner.service)/aws4_request"
    }

    /// Signs the readings the findings suggest, fewest changes first, until one gives the URL's signature.
    mutating func search() -> Outcome? {
        guard let date else { return nil }
        let day = AmzDate.format(epochSeconds: date).day
        typealias Option = (apply: (inout Reading) -> Void, change: Bool)
        var dimensions: [(Dimension, [Option])] = []

        let methods = ["PUT", "GET", "HEAD", "DELETE", "POST"]
        let given = input.method?.uppercased()
        let firstMethod = given ?? "PUT"
        dimensions.append(
            (
                .method,
                [({ $0.method = firstMethod }, false)]
                    + methods.filter { $0 != firstMethod }.map { method in ({ $0.method = method }, true) }
            ))

        let authority = presigner.endpoint.authority
        let bucket = explainer.bucket
        var hostOptions: [Option] = [({ $0.form = .asSent }, false)]
        if sentHost != authority || sentVirtual || !decodedPath.hasPrefix("/" + bucket + "/") {
            hostOptions.append(({ $0.form = .path }, true))
        }
        if presigner.usesVirtualHosting(bucket) && !(sentVirtual && sentHost == url.authority) {
            hostOptions.append(({ $0.form = .virtual }, true))
        }
        dimensions.append((.host, hostOptions))
        if PercentCoding.isEncodedTwice(url.rawPath) {
            dimensions.append((.path, [({ _ in }, false), ({ $0.pathTwice = true }, true)]))
        }
        if url.pairs.contains(where: { PercentCoding.isEncodedTwice($0.rawValue) }) {
            dimensions.append((.query, [({ _ in }, false), ({ $0.queryTwice = true }, true)]))
        }
        if !(suspects[.credential] ?? []).isEmpty {
            dimensions.append((.credential, [({ _ in }, false), ({ $0.serverCredential = true }, true)]))
        }
        if !(suspects[.structure] ?? []).isEmpty {
            dimensions.append((.structure, [({ _ in }, false), ({ $0.repaired = true }, true)]))
        }
        var filledIn = false
        let signedList = url.value("X-Amz-SignedHeaders")
        if signedList == nil {
            filledIn = true
            dimensions.append(
                (
                    .signedHeaders,
                    ["host", "content-type;host", "content-length;content-type;host"].map { list in
                        ({ $0.signedHeaders = list }, false)
                    }
                ))
        }
        if url.value("X-Amz-Expires") == nil {
            filledIn = true
            let lifetimes = explainer.expiries.isEmpty ? [600, 900, 3600] : explainer.expiries
            dimensions.append((.expires, lifetimes.map { lifetime in ({ $0.expires = String(lifetime) }, false) }))
        }
        if signedList == nil || signedList!.split(separator: ";").contains("content-type") {
            let client = clientHeaders?["content-type"]
            var options: [Option] = []
            if let client { options.append(({ $0.contentType = client }, false)) }
            for type in explainer.contentTypes where type != client {
                options.append(({ $0.contentType = type }, client != nil))
            }
            if !options.isEmpty { dimensions.append((.contentType, options)) }
        }

        // Every combination, fewest changes first (stable, so earlier options win ties).
        var readings: [Reading] = [Reading()]
        for (dimension, options) in dimensions {
            var next: [Reading] = []
            next.reserveCapacity(min(readings.count * options.count, 200_000))
            for reading in readings {
                for option in options {
                    var copy = reading
                    option.apply(&copy)
                    if option.change { copy.changes.insert(dimension) }
                    next.append(copy)
                    if next.count >= 200_000 { break }
                }
            }
            readings = next
        }
        readings = readings.enumerated().sorted {
            ($0.element.changes.count, $0.offset) < ($1.element.changes.count, $1.offset)
        }
        .map(\.element)

        var verifiable = false
        var first: Signed?
        var matched: (Reading, Signed)?
        for reading in readings.prefix(explainer.maxCandidates) {
            let signed = sign(reading, date: date, day: day)
            if first == nil { first = signed }
            guard let computed = signed.signature, let signature else { continue }
            verifiable = true
            if computed == signature {
                matched = (reading, signed)
                break
            }
        }

        var confirmations: [ExplainFinding] = []
        if let (reading, _) = matched {
            if reading.changes.contains(.method) {
                confirmations.append(
                    ExplainFinding(
                        .method, field: "method", expected: reading.method, got: given,
                        hint: given == nil
                            ? "the URL was signed for \(reading.method): send it with that method"
                            : "the URL was signed for \(reading.method), and the method is signed: send \(reading.method)",
                        severity: given == nil ? .info : .error))
            }
            if reading.changes.contains(.contentType), let type = reading.contentType {
                confirmations.append(
                    ExplainFinding(
                        .signedHeaderChanged, field: "header:content-type", expected: type,
                        got: clientHeaders?["content-type"],
                        hint:
                            "the URL signs Content-Type \(type): send exactly that value (the headers field of the server's answer); a client that sends another type, or lets its HTTP library pick one, is refused",
                        severity: .error))
            }
            for index in certain.indices where certain[index].code == .parameterMissing {
                if certain[index].field == "X-Amz-SignedHeaders", let list = reading.signedHeaders {
                    certain[index].expected = list
                }
                if certain[index].field == "X-Amz-Expires", let lifetime = reading.expires {
                    certain[index].expected = lifetime
                }
            }
        }
        // Without a match, show the request as sent with the server's scope and issued parameters.
        var fallback = Reading()
        fallback.method = firstMethod
        fallback.serverCredential = true
        fallback.repaired = !(suspects[.structure] ?? []).isEmpty
        fallback.queryTwice = true
        fallback.pathTwice = PercentCoding.isEncodedTwice(url.rawPath)
        fallback.signedHeaders = signedList == nil ? "host" : nil
        fallback.expires = url.value("X-Amz-Expires") == nil ? String(explainer.expiries.first ?? 600) : nil
        let shown = matched?.1 ?? (first != nil ? sign(fallback, date: date, day: day) : nil)
        var expected = shown?.expected
        if matched == nil, given == nil { expected?.methodAssumed = true }
        return Outcome(
            matched: matched?.0, verifiable: verifiable, filledIn: filledIn, confirmations: confirmations,
            expected: expected, rawCanonical: shown?.canonicalRequest)
    }

    /// SigV4 tasks 1 and 2 for `reading`, and its signature with the server's key for the day.
    func sign(_ reading: Reading, date: Int64, day: String) -> Signed {
        let authority = presigner.endpoint.authority
        let bucket = explainer.bucket
        let path = reading.pathTwice ? PercentCoding.decode(decodedPath) : decodedPath
        let key: String
        if sentVirtual {
            key = String(path.dropFirst())
        } else if path.hasPrefix("/" + bucket + "/") {
            key = String(path.dropFirst(bucket.utf8.count + 2))
        } else {
            key = String(path.drop { $0 == "/" }.drop { $0 != "/" }.dropFirst())
        }
        let host: String
        let uri: String
        let addressing: String
        switch reading.form {
        case .asSent:
            host = sentHost
            uri = URIEncoding.encode(path, keepingSlash: true)
            addressing = sentVirtual ? "virtual" : "path"
        case .path:
            host = authority
            uri = "/" + URIEncoding.encode(bucket) + "/" + URIEncoding.encode(key, keepingSlash: true)
            addressing = "path"
        case .virtual:
            host = bucket + "." + authority
            uri = "/" + URIEncoding.encode(key, keepingSlash: true)
            addressing = "virtual"
        }

        var pairs: [(name: String, value: String)] = url.pairs.filter { $0.name != "X-Amz-Signature" }.map { pair in
            let twice = reading.queryTwice && PercentCoding.isEncodedTwice(pair.rawValue)
            return (pair.name, twice ? PercentCoding.decode(pair.value) : pair.value)
        }
        if reading.repaired {
            var kept: [(name: String, value: String)] = []
            for pair in pairs
            where
                (SignatureExplainer.issuedOrder.contains(pair.name)
                || SignatureExplainer.issuedExtras.contains(pair.name))
                && !kept.contains(where: { $0.name == pair.name })
            {
                if pair.name == "X-Amz-Security-Token" && presigner.sessionToken == nil { continue }
                kept.append(pair)
            }
            if !kept.contains(where: { $0.name == "X-Amz-Algorithm" }) {
                kept.append(("X-Amz-Algorithm", "AWS4-HMAC-SHA256"))
            }
            if !kept.contains(where: { $0.name == "X-Amz-Credential" }) {
                kept.append(("X-Amz-Credential", serverCredential(day: day)))
            }
            if let token = presigner.sessionToken, !kept.contains(where: { $0.name == "X-Amz-Security-Token" }) {
                kept.append(("X-Amz-Security-Token", token.unredacted))
            }
            pairs = kept
        }
        if reading.serverCredential {
            if let index = pairs.firstIndex(where: { $0.name == "X-Amz-Credential" }) {
                pairs[index].value = serverCredential(day: day)
            } else {
                pairs.append(("X-Amz-Credential", serverCredential(day: day)))
            }
        }
        if let list = reading.signedHeaders { pairs.append(("X-Amz-SignedHeaders", list)) }
        if let lifetime = reading.expires { pairs.append(("X-Amz-Expires", lifetime)) }

        let signedList = pairs.first { $0.name == "X-Amz-SignedHeaders" }?.value ?? "host"
        var headerLines: [(name: String, value: String)] = []
        var signedHeaders: [SignatureExplanation.SignedHeader] = []
        var known = true
        for name in signedList.split(separator: ";", omittingEmptySubsequences: false).map(String.init) {
            let value: String?
            if name == "host" {
                value = host
            } else if name == "content-type", let type = reading.contentType {
                value = type
            } else {
                value = clientHeaders?[name]
            }
            if value == nil { known = false }
            signedHeaders.append(SignatureExplanation.SignedHeader(name: name, value: value))
            headerLines.append((name, value ?? "<unknown>"))
        }
        // SigV4 tasks 1 to 4, by the signer's own steps (SigV4's CanonicalRequest and Presigner).
        let canonical = CanonicalRequest.text(
            method: reading.method, canonicalURI: uri, query: pairs, headers: headerLines, signedNames: signedList,
            payload: Presigner.unsignedPayload)
        let stringToSign = presigner.stringToSign(canonicalRequest: canonical, epochSeconds: date)
        let signature = known ? presigner.signature(stringToSign: stringToSign, epochSeconds: date) : nil

        var names: [String] = []
        for pair in pairs where SignatureExplainer.issuedExtras.contains(pair.name) && !names.contains(pair.name) {
            names.append(pair.name)
        }
        for name in SignatureExplainer.issuedOrder
        where name == "X-Amz-Signature" || pairs.contains(where: { $0.name == name }) {
            names.append(name)
        }
        let lifetime = pairs.first { $0.name == "X-Amz-Expires" }.flatMap { Int($0.value) }
        let expected = SignatureExplanation.Expected(
            method: reading.method, methodAssumed: input.method == nil, host: host, addressing: addressing,
            bucket: bucket, key: key, signedHeaders: signedHeaders, parameters: names,
            validFrom: SignatureExplainer.iso8601(date),
            expiresAt: lifetime.map { SignatureExplainer.iso8601(date + Int64($0)) }, canonicalRequest: canonical,
            stringToSign: stringToSign)
        return Signed(canonicalRequest: canonical, stringToSign: stringToSign, signature: signature, expected: expected)
    }
}
