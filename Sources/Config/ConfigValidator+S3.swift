extension ConfigValidator {
    /// The `s3` section, including that credentials come as a pair.
    mutating func validateS3() {
        let s3 = config.s3
        if let caFile = s3.caFile { checkReadable("s3.caFile", caFile) }
        if let reason = Self.httpURLProblem(s3.endpoint, allowsPath: false) {
            report("s3.endpoint", "must be http(s)://host[:port]: \(reason)", got: ConfigText.quoted(s3.endpoint))
        }
        if let publicEndpoint = s3.publicEndpoint, let reason = Self.httpURLProblem(publicEndpoint, allowsPath: false) {
            report(
                "s3.publicEndpoint", "must be empty or http(s)://host[:port]: \(reason)",
                got: ConfigText.quoted(publicEndpoint))
        }
        if s3.region.isEmpty || s3.region.count > 64
            || !s3.region.unicodeScalars.allSatisfy({ Self.lowerAlphanumerics.contains(Character($0)) || $0 == "-" })
        {
            report("s3.region", "must be 1-64 characters of a-z 0-9 -", got: ConfigText.quoted(s3.region))
        }
        if let reason = Self.bucketNameProblem(s3.bucket) {
            report("s3.bucket", "must be a valid S3 bucket name: \(reason)", got: ConfigText.quoted(s3.bucket))
        }
        if s3.accessKeyId.count > 128
            || !s3.accessKeyId.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "/" })
        {
            report(
                "s3.accessKeyId", "must be up to 128 printable ASCII characters without spaces or /",
                got: ConfigText.quoted(s3.accessKeyId))
        }
        validateS3Credentials()
        validateS3Provider()
        check("s3.requestTimeoutMs", s3.requestTimeoutMs, in: 1...600_000)
        check("s3.maxClockSkewSeconds", s3.maxClockSkewSeconds, in: 1...86_400)
        check("s3.maxRetries", s3.maxRetries, in: 0...10)
    }

    /// The S3 credentials: an access key id and a secret access key come together, a session token
    /// only with both, and (`requireStaticCredentials`) the pair must be there.
    mutating func validateS3Credentials() {
        let s3 = config.s3
        // A key whose variable or file failed to load is already reported; it is not missing too.
        guard !failedKeyPaths.contains("s3.accessKeyId"), !failedKeyPaths.contains("s3.secretAccessKey") else {
            return
        }
        if !s3.accessKeyId.isEmpty && s3.secretAccessKey == nil {
            report("s3.secretAccessKey", "is required with s3.accessKeyId (\(Self.secretAccessKeySources))")
        }
        if s3.accessKeyId.isEmpty && s3.secretAccessKey != nil {
            report("s3.accessKeyId", "is required with s3.secretAccessKey (\(Self.accessKeyIdSources))")
        }
        if s3.sessionToken != nil && (s3.accessKeyId.isEmpty || s3.secretAccessKey == nil) {
            report("s3.sessionToken", "is used only with s3.accessKeyId and s3.secretAccessKey")
        }
        requireStaticCredentials()
    }

    /// Without any other credential source in `s3.credentialSources`, static keys are the only
    /// way to sign, so a configuration without them is refused here, where `--check-config` sees
    /// it, rather than when the server starts. With another source the chain decides at start.
    mutating func requireStaticCredentials() {
        let s3 = config.s3
        guard s3.accessKeyId.isEmpty && s3.secretAccessKey == nil else { return }
        guard !s3.chainSources.contains(where: { $0 != .environment }) else { return }
        let why = "s3.credentialSources lists only environment, so static keys are the only way presignd signs"
        report("s3.accessKeyId", "is required: \(why) (\(Self.accessKeyIdSources); or AWS_ACCESS_KEY_ID)")
        report(
            "s3.secretAccessKey", "is required: \(why) (\(Self.secretAccessKeySources); or AWS_SECRET_ACCESS_KEY)")
    }

    /// Where an access key id may come from, as a problem states it.
    static let accessKeyIdSources =
        "set PRESIGN_S3_ACCESS_KEY_ID or PRESIGN_S3_ACCESS_KEY_ID_FILE, or s3.accessKeyId in the config file"

    /// Where a secret access key may come from, as a problem states it (never the config file).
    static let secretAccessKeySources = "set PRESIGN_S3_SECRET_ACCESS_KEY or PRESIGN_S3_SECRET_ACCESS_KEY_FILE"

    /// a-z and 0-9.
    static let lowerAlphanumerics = Set("abcdefghijklmnopqrstuvwxyz0123456789")

    /// Why `url` is not `http(s)://host[:port]` (plus `/path` when `allowsPath`), or nil when it is.
    ///
    /// The host is a DNS name, an IPv4 address or a bracketed IPv6 address; no user info, query or fragment.
    static func httpURLProblem(_ url: String, allowsPath: Bool) -> String? {
        let rest: Substring
        if url.hasPrefix("http://") {
            rest = url.dropFirst("http://".count)
        } else if url.hasPrefix("https://") {
            rest = url.dropFirst("https://".count)
        } else {
            return "the scheme must be http or https"
        }
        if rest.contains("?") || rest.contains("#") { return "no query or fragment" }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let path = rest[authorityEnd...]
        if !path.isEmpty {
            guard allowsPath else { return "no path, not even a trailing /" }
            if path.hasSuffix("/") { return "no trailing /" }
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/%")
            if !path.allSatisfy({ allowed.contains($0) }) { return "the path has characters that need encoding" }
        }
        if authority.contains("@") { return "no user info" }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return "unclosed [ in the host" }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let afterClose = authority[authority.index(after: close)...]
            if !afterClose.isEmpty {
                guard afterClose.hasPrefix(":") else { return "bad text after the IPv6 address" }
                port = afterClose.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return "bad IPv6 address"
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            }
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            let labelCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
            guard !host.isEmpty, host.count <= 253,
                labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.allSatisfy { labelCharacters.contains($0) } })
            else { return "bad host name" }
        }
        if let port {
            guard let number = ConfigBuilder.strictInt(String(port)), (1...65535).contains(number) else {
                return "the port must be 1...65535"
            }
        }
        return nil
    }

    /// Why `name` breaks the S3 general purpose bucket naming rules, or nil when it follows them.
    static func bucketNameProblem(_ name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
        if name.count < 3 || name.count > 63 { return "3-63 characters" }
        if !name.allSatisfy({ allowed.contains($0) }) { return "only a-z 0-9 . -" }
        guard let first = name.first, let last = name.last, lowerAlphanumerics.contains(first),
            lowerAlphanumerics.contains(last)
        else { return "starting and ending with a letter or digit" }
        if name.contains("..") { return "no two adjacent periods" }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4 && parts.allSatisfy({ $0.allSatisfy(\.isNumber) }) {
            return "not formatted as an IP address"
        }
        for prefix in ["xn--", "sthree-"] where name.hasPrefix(prefix) { return "not starting with \(prefix)" }
        for suffix in ["-s3alias", "--ol-s3", "--x-s3"] where name.hasSuffix(suffix) {
            return "not ending with \(suffix)"
        }
        return nil
    }
}
