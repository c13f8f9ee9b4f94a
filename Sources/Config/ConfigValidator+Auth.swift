extension ConfigValidator {
    /// The algorithms `auth.jwtAlgorithms` may list.
    static let jwtAlgorithms = ["HS256", "RS256", "ES256"]

    /// The `auth` section, including that `jwt` mode has a key for each algorithm it accepts.
    mutating func validateAuth() {
        let auth = config.auth
        if auth.devUserHeader.isEmpty || auth.devUserHeader.count > 64
            || !auth.devUserHeader.unicodeScalars.allSatisfy({
                $0.isASCII && Self.tokenCharacters.contains(Character($0))
            })
        {
            report(
                "auth.devUserHeader", "must be an HTTP header name (1-64 token characters)",
                got: ConfigText.quoted(auth.devUserHeader))
        }
        if !UserIdRule.isValid(auth.devDefaultUserId) {
            report(
                "auth.devDefaultUserId", "must be \(UserIdRule.summary) (the rule of every user id)",
                got: ConfigText.quoted(auth.devDefaultUserId))
        }
        if let secret = auth.hs256Secret, secret.count < 32 {
            report("auth.hs256Secret", "must be at least 32 bytes (RFC 7518, section 3.2)")
        }
        validateJWTSettings()
        validateAPIKeys()
        if config.explain.enabled && !auth.apiKeys.contains(where: \.isAdmin) {
            report(
                "explain.enabled",
                "needs an API key with the admin scope in auth.apiKeys (the explain route serves admin keys only)")
        }
        if auth.mode == .jwt { validateKeySources() }
    }

    /// The JWT keys that hold for every mode: algorithm names, leeway, claim, limits.
    mutating func validateJWTSettings() {
        let auth = config.auth
        var seen: Set<String> = []
        for name in auth.jwtAlgorithms {
            if name.lowercased() == "none" {
                report("auth.jwtAlgorithms", "must not list none: unsigned tokens are never accepted")
            } else if !Self.jwtAlgorithms.contains(name) {
                report(
                    "auth.jwtAlgorithms", "each must be one of \(Self.jwtAlgorithms.joined(separator: ", "))",
                    got: ConfigText.quoted(name))
            } else if !seen.insert(name).inserted {
                report("auth.jwtAlgorithms", "lists an algorithm twice", got: ConfigText.quoted(name))
            }
        }
        check("auth.jwtLeewaySeconds", auth.jwtLeewaySeconds, in: 0...300)
        check("auth.maxTokenBytes", auth.maxTokenBytes, in: 512...65536)
        if auth.jwtUserClaim.isEmpty || auth.jwtUserClaim.count > 64
            || auth.jwtUserClaim.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f })
        {
            report(
                "auth.jwtUserClaim", "must be a claim name of 1-64 characters",
                got: ConfigText.quoted(auth.jwtUserClaim))
        }
        for (key, value) in [("auth.jwtIssuer", auth.jwtIssuer), ("auth.jwtAudience", auth.jwtAudience)]
        where (value?.utf8.count ?? 0) > 1024 {
            report(key, "must be at most 1024 bytes")
        }
        for path in auth.jwtPublicKeyFiles where path.isEmpty {
            report("auth.jwtPublicKeyFiles", "must not hold an empty path")
        }
    }

    /// `auth.apiKeys`: ids usable as caller ids, SHA-256 digests in hexadecimal, neither repeated.
    mutating func validateAPIKeys() {
        var ids: Set<String> = []
        var digests: Set<String> = []
        for (index, entry) in config.auth.apiKeys.enumerated() {
            let path = "auth.apiKeys[\(index)]"
            let idCharactersValid = entry.id.unicodeScalars.allSatisfy {
                $0.isASCII && Self.apiKeyIdCharacters.contains(Character($0))
            }
            if entry.id.isEmpty || entry.id.count > 64 || !idCharactersValid {
                report("\(path).id", "must be 1-64 characters of A-Z a-z 0-9 _ -", got: ConfigText.quoted(entry.id))
            } else if !ids.insert(entry.id).inserted {
                report("\(path).id", "is used by another API key", got: ConfigText.quoted(entry.id))
            }
            let digest = entry.sha256.lowercased()
            if digest.utf8.count != 64 || !digest.utf8.allSatisfy({ Self.hexDigits.contains($0) }) {
                report("\(path).sha256", "must be the SHA-256 of the key as 64 hexadecimal digits (not the key itself)")
            } else if !digests.insert(digest).inserted {
                report("\(path).sha256", "is the digest of another API key")
            }
            for scope in entry.scopes where !APIKeyConfig.knownScopes.contains(scope) {
                report(
                    "\(path).scopes", "each must be one of \(APIKeyConfig.knownScopes.joined(separator: ", "))",
                    got: ConfigText.quoted(scope))
            }
        }
    }

    /// The bytes of `0-9 a-f`.
    static let hexDigits = Set("0123456789abcdef".utf8)

    /// `jwt` mode: each accepted algorithm has a key source, and every key file is readable.
    mutating func validateKeySources() {
        let auth = config.auth
        let algorithms = Set(auth.jwtAlgorithms)
        if algorithms.isEmpty && auth.apiKeys.isEmpty {
            report(
                "auth.jwtAlgorithms",
                "must list at least one algorithm in jwt mode (or leave it empty and configure auth.apiKeys to accept API keys only)"
            )
        }
        if algorithms.contains("HS256") && auth.hs256Secret == nil {
            report(
                "auth.hs256Secret",
                "is required because auth.jwtAlgorithms lists HS256 (set PRESIGN_AUTH_HS256_SECRET or PRESIGN_AUTH_HS256_SECRET_FILE)"
            )
        }
        let publicKeyAlgorithms = Self.jwtAlgorithms.filter { $0 != "HS256" && algorithms.contains($0) }
        if !publicKeyAlgorithms.isEmpty && auth.jwtPublicKeyFiles.isEmpty && auth.jwksFile == nil {
            var message =
                "auth.jwtAlgorithms lists \(publicKeyAlgorithms.joined(separator: ", ")), which need public keys: set auth.jwtPublicKeyFiles or auth.jwksFile"
            if auth.hs256Secret != nil && !algorithms.contains("HS256") {
                message += #" (or, to verify tokens with auth.hs256Secret, set auth.jwtAlgorithms to ["HS256"])"#
            }
            report("auth.jwtPublicKeyFiles", message)
        }
        for path in auth.jwtPublicKeyFiles where !path.isEmpty { checkReadable("auth.jwtPublicKeyFiles", path) }
        if let jwksFile = auth.jwksFile { checkReadable("auth.jwksFile", jwksFile) }
    }
}
