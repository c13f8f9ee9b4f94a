import SigV4

extension ExplainRun {
    /// The parts of a canonical request, split at its lines.
    struct CanonicalParts {
        var method = ""
        var path = ""
        var query: [(name: String, value: String)] = []
        var headers: [(name: String, value: String)] = []
        var signedHeaders = ""
        var payload = ""

        /// Splits `text` (`METHOD\nPATH\nQUERY\nHEADERS…\n\nSIGNED\nPAYLOAD`); nil when it has too few lines.
        init?(_ text: String) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.count >= 6 else { return nil }
            method = lines[0]
            path = lines[1]
            for piece in lines[2].split(separator: "&") {
                let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
            }
            var index = 3
            while index < lines.count - 2 && !lines[index].isEmpty {
                let line = lines[index]
                if let colon = line.firstIndex(of: ":") {
                    headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
                }
                index += 1
            }
            signedHeaders = lines[lines.count - 2]
            payload = lines[lines.count - 1]
        }
    }

    /// Storage's view of the request (its canonical request and string to sign) against the server's.
    func compareWithStorage(
        _ storage: StorageErrorReport, intended: SignatureExplanation.Expected, rawCanonical: String?
    ) -> [ExplainFinding] {
        var findings: [ExplainFinding] = []
        func add(_ code: ExplainCode, _ field: String, _ expected: String?, _ got: String?, _ hint: String) {
            findings.append(
                ExplainFinding(code, field: field, expected: expected, got: got, hint: hint, severity: .error))
        }
        if let key = storage.accessKeyId, !key.isEmpty, key != presigner.accessKeyId {
            add(
                .credentialKeyId, "storage.AWSAccessKeyId", presigner.accessKeyId, key,
                "storage read another access key from the request than the server's")
        }
        var canonicalDiffers = false
        if let theirs = storage.canonicalRequest.flatMap(CanonicalParts.init), let raw = rawCanonical,
            let ours = CanonicalParts(raw)
        {
            let hint = "storage's <CanonicalRequest> differs here from what the server signed"
            if theirs.method != ours.method {
                add(
                    .storageCanonicalRequest, "canonicalRequest.method", ours.method, theirs.method,
                    "\(hint): the request used another method than the URL was signed for")
            }
            if theirs.path != ours.path {
                add(
                    .storageCanonicalRequest, "canonicalRequest.path", ours.path, theirs.path,
                    "\(hint): storage saw another path (a re-encoded key such as %252F, another bucket or addressing style)"
                )
            }
            func redact(_ name: String, _ value: String?) -> String? {
                name == "X-Amz-Security-Token" ? value.map { _ in "<redacted>" } : value
            }
            for (name, value) in ours.query {
                let other = theirs.query.first { $0.name == name }?.value
                if other != value {
                    add(
                        .storageCanonicalRequest, "canonicalRequest.query.\(PercentCoding.decode(name))",
                        redact(name, value), redact(name, other),
                        other == nil
                            ? "\(hint): storage did not get this parameter" : "\(hint): storage read another value")
                }
            }
            for (name, value) in theirs.query where !ours.query.contains(where: { $0.name == name }) {
                add(
                    .storageCanonicalRequest, "canonicalRequest.query.\(PercentCoding.decode(name))", nil,
                    redact(name, value), "\(hint): a parameter the server did not sign was added")
            }
            for (name, value) in ours.headers {
                let other = theirs.headers.first { $0.name == name }?.value
                if other != value {
                    add(
                        .storageCanonicalRequest, "canonicalRequest.header.\(name)", value, other,
                        "\(hint): storage received another value for a signed header")
                }
            }
            if theirs.signedHeaders != ours.signedHeaders {
                add(
                    .storageCanonicalRequest, "canonicalRequest.signedHeaders", ours.signedHeaders,
                    theirs.signedHeaders, "\(hint): X-Amz-SignedHeaders was changed")
            }
            if theirs.payload != ours.payload {
                add(
                    .storageCanonicalRequest, "canonicalRequest.payload", ours.payload, theirs.payload,
                    "\(hint): presigned URLs sign UNSIGNED-PAYLOAD")
            }
            canonicalDiffers = !findings.isEmpty
        }
        if let theirs = storage.stringToSign {
            let theirLines = theirs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let ourLines = intended.stringToSign.split(separator: "\n", omittingEmptySubsequences: false).map(
                String.init)
            let names = ["stringToSign.algorithm", "stringToSign.date", "stringToSign.scope", "stringToSign.hash"]
            for index in 0..<min(4, ourLines.count) {
                let other = index < theirLines.count ? theirLines[index] : nil
                guard other != ourLines[index] else { continue }
                // The hash follows from the canonical request: only report it when that looked the same.
                if index == 3 && (canonicalDiffers || storage.canonicalRequest == nil) { continue }
                add(
                    .storageStringToSign, names[index], ourLines[index], other,
                    index == 3
                        ? "storage hashed other bytes than the canonical request it shows (an encoding difference)"
                        : "storage's <StringToSign> differs from the server's: another date or credential scope")
            }
        }
        return findings
    }
}

extension ExplainRun {
    /// Why storage refused a URL that is exactly what the server signs: the credentials. With AWS's
    /// `StringToSign` equal to the server's (and its `SignatureProvided` the URL's), storage's key for
    /// the day is another one; otherwise storage is asked to take the server's own credentials.
    func credentialsFindings(intended: SignatureExplanation.Expected) -> [ExplainFinding] {
        let hint =
            "the URL is exactly what the server signs, and storage refuses it: the secret the server holds (s3.secretAccessKey or the credential chain) is not the one storage has for access key \(presigner.accessKeyId); fix the server's secret, then issue the URL again"
        if let theirs = input.storage?.stringToSign {
            // A different string to sign is named by compareWithStorage: the cause is there.
            guard theirs == intended.stringToSign else { return [] }
            let sent = url.value("X-Amz-Signature")?.lowercased()
            if let provided = input.storage?.signatureProvided?.lowercased(), provided != sent { return [] }
            return [
                ExplainFinding(
                    .secretKeyMismatch, field: "credentials",
                    expected: "storage's signature of the same <StringToSign> equals the server's",
                    got: "storage computed another signature for the same string to sign", hint: hint,
                    severity: .error)
            ]
        }
        guard let checkCredentials else { return [] }
        let asked = "a signed HEAD of the bucket with the server's credentials is accepted"
        switch checkCredentials() {
        case .refused(let status, let code) where status == 403 || code == "SignatureDoesNotMatch":
            return [
                ExplainFinding(
                    .secretKeyMismatch, field: "credentials", expected: asked,
                    got: "HTTP \(status)\(code.map { " \($0)" } ?? "")",
                    hint: code == "InvalidAccessKeyId"
                        ? "storage does not know access key \(presigner.accessKeyId): the server's credentials are not storage's"
                        : hint, severity: .error)
            ]
        case .refused(let status, let code):
            return [
                ExplainFinding(
                    .credentialsUnchecked, field: "credentials", expected: asked,
                    got: "HTTP \(status)\(code.map { " \($0)" } ?? "")",
                    hint:
                        "storage answered the server's own request with neither success nor a refusal of its credentials",
                    severity: .warning)
            ]
        case .accepted:
            return [
                ExplainFinding(
                    .credentialsAccepted, field: "credentials", expected: nil, got: "accepted",
                    hint:
                        "the URL is exactly what the server signs and storage accepts the server's credentials: the request storage refused was not this URL as given (a proxy or the client changed a signed part on the way, or the error belongs to another request)",
                    severity: .warning)
            ]
        case .unavailable(let reason):
            return [
                ExplainFinding(
                    .credentialsUnchecked, field: "credentials", expected: asked, got: reason,
                    hint:
                        "the URL is what the server signs; a wrong server secret is the usual cause, but storage could not be asked",
                    severity: .warning)
            ]
        }
    }
}
