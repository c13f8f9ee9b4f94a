import Crypto
import SigV4

/// One explanation in progress: the URL read every way the explainer needs, the findings so far.
///
/// Findings come in two kinds. Certain ones hold whatever the signature says (an expired URL, a
/// missing parameter). Suspects belong to one `Dimension` of the signature search: they are kept as
/// errors when the matching reading changed that dimension, dropped when the URL as sent already
/// matched there, and kept as warnings when no reading matched.
struct ExplainRun {
    /// The parts of a request a client can change, each tried as sent and repaired.
    enum Dimension: Int, CaseIterable {
        case method, host, path, query, credential, structure, signedHeaders, expires, contentType
    }

    let explainer: SignatureExplainer
    let presigner: Presigner
    let url: RequestURL
    let input: ExplainInput
    let now: Int64
    /// Asks storage to take the server's own credentials (see `SignatureExplainer.explain`).
    let checkCredentials: (() -> CredentialsCheck)?

    var certain: [ExplainFinding] = []
    var suspects: [Dimension: [ExplainFinding]] = [:]

    /// The client's headers, lower-case names, values normalised as SigV4 does; nil when not given.
    let clientHeaders: [String: String]?
    /// The `Host` the client sent: its `Host` header when given, else the URL's authority.
    let sentHost: String
    /// The path decoded once (what storage reads).
    let decodedPath: String
    /// True when the URL is virtual-hosted on the server's endpoint (bucket in the host).
    let sentVirtual: Bool
    /// The object key, read from the URL as sent (decoded once).
    let sentKey: String
    /// `X-Amz-Date` in epoch seconds, when present and well formed.
    var date: Int64?
    /// `X-Amz-Expires`, when present and well formed.
    var expires: Int?
    /// The signature the URL carries, when present and well formed.
    var signature: SHA256Digest?

    init(
        explainer: SignatureExplainer, presigner: Presigner, url: RequestURL, input: ExplainInput, now: Int64,
        checkCredentials: (() -> CredentialsCheck)? = nil
    ) {
        self.checkCredentials = checkCredentials
        self.explainer = explainer
        self.presigner = presigner
        self.url = url
        self.input = input
        self.now = now
        if let headers = input.headers {
            var map: [String: String] = [:]
            for (name, value) in headers where map[name.lowercased()] == nil {
                map[name.lowercased()] = Self.normalize(value)
            }
            clientHeaders = map
        } else {
            clientHeaders = nil
        }
        sentHost = clientHeaders?["host"]?.lowercased() ?? url.authority
        decodedPath = PercentCoding.decode(url.rawPath)
        let virtualHost = explainer.bucket + "." + presigner.endpoint.authority
        sentVirtual = url.authority == virtualHost
        if sentVirtual {
            sentKey = String(decodedPath.dropFirst())
        } else if decodedPath.hasPrefix("/" + explainer.bucket + "/") {
            sentKey = String(decodedPath.dropFirst(explainer.bucket.utf8.count + 2))
        } else {
            sentKey = String(decodedPath.drop { $0 == "/" }.drop { $0 != "/" }.dropFirst())
        }
    }

    /// SigV4's header value normalisation: trimmed, inner runs of spaces and tabs made one space.
    static func normalize(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// Adds a finding that holds whatever the signature says.
    mutating func note(
        _ code: ExplainCode, _ field: String, expected: String?, got: String?, _ hint: String,
        _ severity: ExplainFinding.Severity
    ) {
        certain.append(ExplainFinding(code, field: field, expected: expected, got: got, hint: hint, severity: severity))
    }

    /// Adds a finding that the signature search confirms or clears in `dimension`.
    mutating func suspect(
        _ dimension: Dimension, _ code: ExplainCode, _ field: String, expected: String?, got: String?, _ hint: String,
        _ severity: ExplainFinding.Severity = .warning
    ) {
        suspects[dimension, default: []].append(
            ExplainFinding(code, field: field, expected: expected, got: got, hint: hint, severity: severity))
    }

    /// Runs every check and the search, and assembles the answer.
    mutating func explain() -> SignatureExplanation {
        checkHost()
        checkQuery()
        checkCredential()
        checkTime()
        checkSignedHeaders()
        let outcome = search()
        var findings: [ExplainFinding] = []
        var issued: Bool?
        var matches = false
        if let outcome, let matched = outcome.matched {
            issued = true
            matches = matched.changes.isEmpty && !outcome.filledIn
            for dimension in Dimension.allCases {
                guard matched.changes.contains(dimension) else { continue }
                for var finding in suspects[dimension] ?? [] {
                    finding.severity = .error
                    findings.append(finding)
                }
            }
            findings.append(contentsOf: outcome.confirmations)
        } else {
            for dimension in Dimension.allCases {
                for finding in suspects[dimension] ?? [] {
                    // Without a matching reading, a %25XX in the path cannot tell a second encoding from
                    // a key that holds a literal '%': say so, as information only.
                    if dimension == .path && finding.code == .doubleEncoded {
                        var ambiguous = finding
                        ambiguous.severity = .info
                        ambiguous.hint =
                            "the path holds %25XX: a second percent-encoding, or a key with a literal '%' (no reading matched the signature, so it cannot tell which)"
                        findings.append(ambiguous)
                    } else {
                        findings.append(finding)
                    }
                }
            }
            if let outcome, outcome.verifiable {
                issued = false
                findings.append(
                    ExplainFinding(
                        .signatureMismatch, field: "X-Amz-Signature", expected: "the server's signature",
                        got: "another signature",
                        hint:
                            "no reading of this URL gives its signature with the server's credentials: it was not issued by this server with its current credentials (another server or environment, a rotated or different secret key), or a signed part the explainer cannot restore was changed (the time in X-Amz-Date, the object key, a signed header value)",
                        severity: .error))
            }
        }
        findings.append(contentsOf: certain)
        var expected = outcome?.expected
        if let unchecked = uncheckedHeaders(expected) { findings.append(unchecked) }
        if matches, input.storage?.code == "SignatureDoesNotMatch", let intended = expected {
            findings.append(contentsOf: credentialsFindings(intended: intended))
        }
        if let storage = input.storage, let intended = expected {
            findings.append(
                contentsOf: compareWithStorage(storage, intended: intended, rawCanonical: outcome?.rawCanonical))
        }
        if expected != nil {
            expected!.canonicalRequest = SignatureExplainer.redactingToken(expected!.canonicalRequest)
        }
        let order: [ExplainFinding.Severity: Int] = [.error: 0, .warning: 1, .info: 2]
        let sorted = findings.enumerated().sorted {
            (order[$0.element.severity]!, $0.offset) < (order[$1.element.severity]!, $1.offset)
        }.map(\.element)
        return SignatureExplanation(
            findings: sorted, signatureMatches: matches, issuedByThisServer: issued, expected: expected,
            storageCode: input.storage?.code)
    }

    // MARK: Checks on the URL alone

    /// Scheme, host (and the `Host` header), addressing style and bucket.
    mutating func checkHost() {
        let endpoint = presigner.endpoint
        let authority = endpoint.authority
        let bucket = explainer.bucket
        let virtualHost = bucket + "." + authority
        let serverVirtual = presigner.usesVirtualHosting(bucket)
        if url.scheme != endpoint.scheme {
            note(
                .wrongHost, "scheme", expected: endpoint.scheme, got: url.scheme,
                "the server signs \(endpoint.scheme) URLs for \(authority); the scheme is not signed, but another scheme usually means another endpoint (a proxy or a rewritten URL)",
                .warning)
        }
        if let header = clientHeaders?["host"], header.lowercased() != url.authority {
            suspect(
                .host, .wrongHost, "header:host", expected: url.authority, got: header,
                "the Host header is signed: send the URL's own host (a proxy that rewrites Host breaks the signature)")
        }
        if url.authority == authority {
            if !decodedPath.hasPrefix("/" + bucket + "/") {
                let got = decodedPath.split(separator: "/").first.map(String.init) ?? ""
                note(
                    .wrongBucket, "path", expected: "/\(bucket)/…", got: url.rawPath,
                    "path-style URLs start with the bucket: the server issues URLs for bucket \(bucket), not \(got.isEmpty ? "none" : got)",
                    .error)
            }
        } else if url.authority == virtualHost {
            if !serverVirtual {
                suspect(
                    .host, .addressingStyle, "host", expected: "path-style: \(authority)/\(bucket)/…",
                    got: "virtual-hosted: \(url.authority)/…",
                    "the server signs this bucket path-style (s3.addressing, or client P's routes, which are always path-style); the client moved the bucket into the host name, which changes the signed Host and path"
                )
            }
        } else {
            let expectedHost = serverVirtual ? "\(virtualHost) or \(authority)" : authority
            suspect(
                .host, .wrongHost, "host", expected: expectedHost, got: url.authority,
                "the server signs for \(endpoint.scheme)://\(authority) (s3.publicEndpoint, else s3.endpoint): the Host is signed, so a URL sent to another host, or through a proxy that changes it, fails"
            )
        }
        if url.authority == authority && serverVirtual && decodedPath.hasPrefix("/" + bucket + "/") {
            suspect(
                .host, .addressingStyle, "host", expected: "virtual-hosted: \(virtualHost)/…",
                got: "path-style: \(url.authority)/\(bucket)/…",
                "the server signs this bucket virtual-hosted (s3.addressing) except on client P's routes; if the URL came from another route, the client moved the bucket out of the host name",
                .info)
        }
        if PercentCoding.isEncodedTwice(url.rawPath) {
            suspect(
                .path, .doubleEncoded, "path", expected: PercentCoding.decode(url.rawPath), got: url.rawPath,
                "the path was percent-encoded a second time (%XX became %25XX): send the URL's path byte for byte; on iOS build the request from URL(string:) rather than from URLComponents' decoded parts"
            )
        }
    }

    /// Missing, added, repeated and reordered parameters; re-encoded and unencoded values.
    mutating func checkQuery() {
        var seen: [String: Int] = [:]
        for pair in url.pairs { seen[pair.name, default: 0] += 1 }
        for (name, count) in seen.sorted(by: { $0.key < $1.key }) where count > 1 {
            suspect(
                .structure, .parameterDuplicated, name, expected: "once", got: "\(count) times",
                "every parameter but X-Amz-Signature is signed: a repeated one changes the canonical query (a client that appended the URL's query to itself?)"
            )
        }
        var required = ["X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders"]
        required.append("X-Amz-Signature")
        for name in required where seen[name] == nil {
            switch name {
            case "X-Amz-Algorithm":
                suspect(
                    .structure, .parameterMissing, name, expected: "AWS4-HMAC-SHA256", got: nil,
                    "the URL lost a parameter the server signs: pass the issued URL on whole")
            case "X-Amz-Credential":
                suspect(
                    .structure, .parameterMissing, name, expected: "the server's credential scope", got: nil,
                    "the URL lost a parameter the server signs: pass the issued URL on whole")
            default:
                note(
                    .parameterMissing, name, expected: "present", got: nil,
                    "the URL lost a parameter the server signs (a client that keeps only some parameters, or splits values at '='): pass the issued URL on whole",
                    .error)
            }
        }
        let hasToken = presigner.sessionToken != nil
        if hasToken && seen["X-Amz-Security-Token"] == nil {
            suspect(
                .structure, .parameterMissing, "X-Amz-Security-Token", expected: "the server's session token",
                got: nil,
                "the server signs with temporary credentials, so every URL carries X-Amz-Security-Token; a client that keeps only six parameters (client P) drops it"
            )
        }
        for name in seen.keys.sorted()
        where !SignatureExplainer.issuedOrder.contains(name) && !SignatureExplainer.issuedExtras.contains(name) {
            suspect(
                .structure, .parameterAdded, name, expected: nil, got: url.value(name),
                "the server did not issue this parameter, and storage signs every parameter but X-Amz-Signature: do not add parameters (SDKs add x-id, some proxies add cache busters)"
            )
        }
        if !hasToken && seen["X-Amz-Security-Token"] != nil {
            suspect(
                .structure, .parameterAdded, "X-Amz-Security-Token", expected: nil, got: "<redacted>",
                "the server signs with long-term keys, which carry no session token: the URL comes from other credentials"
            )
        }
        // Order: the server's, for the names present.
        var firstNames: [String] = []
        for pair in url.pairs where !firstNames.contains(pair.name) { firstNames.append(pair.name) }
        let known = firstNames.filter {
            SignatureExplainer.issuedOrder.contains($0) || SignatureExplainer.issuedExtras.contains($0)
        }
        let extras = known.filter { SignatureExplainer.issuedExtras.contains($0) }
        let expectedOrder = extras + SignatureExplainer.issuedOrder.filter { known.contains($0) }
        if known != expectedOrder {
            note(
                .parameterReordered, "query", expected: expectedOrder.joined(separator: ","),
                got: known.joined(separator: ","),
                "storage sorts the parameters before signing, so the order alone does not break the signature; clients that rebuild the query (client P) must keep this order",
                .info)
        }
        for pair in url.pairs {
            if PercentCoding.isEncodedTwice(pair.rawValue) {
                let once = PercentCoding.decode(pair.rawValue)
                suspect(
                    .query, .doubleEncoded, pair.name,
                    expected: pair.name == "X-Amz-Security-Token" ? "<redacted>" : once,
                    got: pair.name == "X-Amz-Security-Token" ? "<redacted, encoded twice>" : pair.rawValue,
                    "the value was percent-encoded a second time (%2F became %252F, the first seed's bug): iOS URLComponents.queryItems encodes '%' again; use percentEncodedQueryItems or the URL string as issued",
                    .error)
            } else if pair.name.hasPrefix("X-Amz-"), pair.name != "X-Amz-Security-Token",
                pair.rawValue.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ";") })
            {
                note(
                    .notEncoded, pair.name, expected: URIEncoding.encode(pair.value), got: pair.rawValue,
                    "the issued value has %2F / %3B here; storage decodes before signing, so this alone is harmless, but a client that rewrites the URL may break it in other ways: pass it on byte for byte",
                    .info)
            }
        }
        if let algorithm = url.value("X-Amz-Algorithm"), algorithm != "AWS4-HMAC-SHA256" {
            note(
                .parameterInvalid, "X-Amz-Algorithm", expected: "AWS4-HMAC-SHA256", got: algorithm,
                "the server signs with SigV4 (AWS4-HMAC-SHA256) only", .error)
        }
        if let text = url.value("X-Amz-Signature") {
            let lowered = text.lowercased()
            if lowered.utf8.count == 64, let bytes = Hex.decode(lowered), let digest = SHA256Digest(bytes: bytes) {
                signature = digest
            } else {
                note(
                    .parameterInvalid, "X-Amz-Signature", expected: "64 hexadecimal digits",
                    got: "\(text.utf8.count) characters",
                    "the signature was cut or changed: pass the issued URL on whole",
                    .error)
            }
        }
    }

    /// The credential scope against the server's: key id, day, region, service, terminator.
    mutating func checkCredential() {
        guard let pair = url.pairs(named: "X-Amz-Credential").first else { return }
        let value = PercentCoding.isEncodedTwice(pair.rawValue) ? PercentCoding.decode(pair.value) : pair.value
        let parts = value.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5 else {
            note(
                .credentialScope, "X-Amz-Credential",
                expected: "\(presigner.accessKeyId)/YYYYMMDD/\(presigner.region)/s3/aws4_request",
                got: value, "the credential is not KEYID/day/region/service/aws4_request", .error)
            return
        }
        if parts[0] != presigner.accessKeyId {
            suspect(
                .credential, .credentialKeyId, "X-Amz-Credential", expected: presigner.accessKeyId, got: parts[0],
                "the URL was signed with another access key: another server or environment, or credentials that were rotated since (a URL signed by an old key fails once that key is gone)",
                .error)
        }
        if let dateText = url.value("X-Amz-Date"), let epoch = AmzDate.epochSeconds(dateText),
            parts[1] != AmzDate.format(epochSeconds: epoch).day
        {
            suspect(
                .credential, .credentialDate, "X-Amz-Credential", expected: AmzDate.format(epochSeconds: epoch).day,
                got: parts[1],
                "the credential's day must be X-Amz-Date's day: one of the two was changed (or the URL was assembled from two URLs)",
                .error)
        }
        if parts[2] != presigner.region {
            suspect(
                .credential, .credentialRegion, "X-Amz-Credential", expected: presigner.region, got: parts[2],
                "the URL was signed for another region than the server's s3.region: storage derives the key from the region, so a URL for another region (or from a server configured for another region) fails",
                .error)
        }
        if parts[3] != presigner.service || parts[4] != "aws4_request" {
            suspect(
                .credential, .credentialScope, "X-Amz-Credential", expected: "\(presigner.service)/aws4_request",
                got: "\(parts[3])/\(parts[4])", "the scope must end in s3/aws4_request", .error)
        }
    }

    /// `X-Amz-Date` and `X-Amz-Expires` against the clock (and storage's, when known).
    mutating func checkTime() {
        if let text = url.value("X-Amz-Date") {
            if let epoch = AmzDate.epochSeconds(text) {
                date = epoch
            } else {
                note(
                    .parameterInvalid, "X-Amz-Date", expected: "YYYYMMDDTHHMMSSZ", got: text,
                    "the date is signed and must be SigV4's basic ISO 8601 form", .error)
            }
        }
        if let text = url.value("X-Amz-Expires") {
            if let value = Int(text), (1...604_800).contains(value), String(value) == text {
                expires = value
            } else {
                note(
                    .parameterInvalid, "X-Amz-Expires", expected: "1 to 604800 seconds", got: text,
                    "the lifetime is signed and must be a whole number of seconds up to seven days", .error)
            }
        }
        guard let date else { return }
        let storageTime = input.storage?.storageTime
        if let storageTime, abs(storageTime - now) > 60 {
            let ahead = storageTime > now
            note(
                .storageClock, "storage.time", expected: SignatureExplainer.iso8601(now),
                got: SignatureExplainer.iso8601(storageTime),
                "storage's clock is \(abs(storageTime - now)) s \(ahead ? "ahead of" : "behind") this server's: URLs \(ahead ? "expire early" : "start late") at storage; fix NTP on the slower side (the server's /readyz reports the skew)",
                .warning)
        }
        if date > now {
            let ahead = date - now
            note(
                .clockSkew, "X-Amz-Date", expected: "at or before \(SignatureExplainer.iso8601(now))",
                got: SignatureExplainer.iso8601(date),
                "X-Amz-Date is \(ahead) s ahead of this server's clock: the clock of whatever issued the URL runs ahead (or this server's is behind); storage refuses a request more than 15 minutes early (RequestTimeTooSkewed / not yet valid)",
                ahead > explainer.maxSkewSeconds ? .error : .warning)
        }
        if let expires {
            let end = date + Int64(expires)
            let judged = storageTime ?? now
            if end <= judged || end <= now {
                let at = end <= now ? now : judged
                note(
                    .expired, "X-Amz-Expires", expected: "a request before \(SignatureExplainer.iso8601(end))",
                    got:
                        "\(end <= now ? "now" : "storage's clock"): \(SignatureExplainer.iso8601(at)), \(at - end) s late",
                    "the URL expired (X-Amz-Date + X-Amz-Expires): ask the server for a new one; a client that caches URLs must refresh them before expiresAt",
                    .error)
            }
        }
    }

    /// Without the client's headers, the headers the URL signs besides `host` cannot be checked: a
    /// finding that names them, with the value signed where the signature search found it (a configured
    /// content type), so the caller knows what the request must carry; nil when headers were given or
    /// only `host` is signed.
    func uncheckedHeaders(_ expected: SignatureExplanation.Expected?) -> ExplainFinding? {
        guard clientHeaders == nil, let list = url.value("X-Amz-SignedHeaders") else { return nil }
        let names = list.split(separator: ";").map(String.init).filter { $0 != "host" }
        guard !names.isEmpty else { return nil }
        let values = expected?.signedHeaders ?? []
        let shown = names.map { name in
            let value = values.first { $0.name == name }?.value
            return "\(name): \(value ?? "the value issued")"
        }
        let example = names.map { name in
            let value = values.first { $0.name == name }?.value
            return "--header '\(Self.displayName(name)): \(value ?? "…")'"
        }
        return ExplainFinding(
            .signedHeadersUnchecked, field: "X-Amz-SignedHeaders", expected: shown.joined(separator: "; "),
            got: "no headers given",
            hint:
                "the URL signs \(names.joined(separator: ", ")) besides host: the upload must send \(names.count == 1 ? "it" : "each") with the value it was issued with (the headers field of the server's answer), or storage refuses it; give the request's headers to check them and the signature (\(example.joined(separator: " ")), or headers in POST /admin/explain's body)",
            severity: .warning)
    }

    /// A lower-case header name as clients usually write it (`content-type` -> `Content-Type`).
    static func displayName(_ name: String) -> String {
        name.split(separator: "-", omittingEmptySubsequences: false).map { part in
            part.prefix(1).uppercased() + part.dropFirst()
        }.joined(separator: "-")
    }

    /// The signed header list: well formed, sorted, `host` in it, and every header in it sent.
    mutating func checkSignedHeaders() {
        guard let list = url.value("X-Amz-SignedHeaders") else { return }
        let names = list.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        if !names.contains("host") || names.contains(where: { $0.isEmpty || $0 != $0.lowercased() })
            || names != names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        {
            note(
                .parameterInvalid, "X-Amz-SignedHeaders", expected: "lower-case names, sorted, host among them",
                got: list, "the server writes the signed header names sorted and lower case", .error)
        }
        guard let clientHeaders else { return }
        for name in names where name != "host" && clientHeaders[name] == nil {
            note(
                .signedHeaderMissing, "header:\(name)", expected: "sent", got: nil,
                "the URL signs \(name): the client must send it with the value it was issued with (the headers field of the server's answer)",
                .error)
        }
    }
}
