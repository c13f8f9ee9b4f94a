import Crypto

extension ConfigValidator {
    /// The `webhooks` section.
    mutating func validateWebhooks() {
        let webhooks = config.webhooks
        let known = WebhookEventType.allCases.map(\.rawValue)
        if !webhooks.url.isEmpty, let reason = Self.webhookURLProblem(webhooks.url) {
            report("webhooks.url", "must be empty or an http(s) URL: \(reason)", got: ConfigText.quoted(webhooks.url))
        }
        for (i, event) in webhooks.events.enumerated() where !known.contains(event) {
            report(
                "webhooks.events[\(i)]", "must be one of \(known.joined(separator: ", "))",
                got: ConfigText.quoted(event))
        }
        var names: Set<String> = webhooks.url.isEmpty ? [] : [WebhooksConfig.defaultEndpointName]
        let nameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789_-")
        for (i, endpoint) in webhooks.endpoints.enumerated() {
            let path = "webhooks.endpoints[\(i)]"
            if endpoint.name.isEmpty || endpoint.name.count > 64 || !endpoint.name.allSatisfy(nameCharacters.contains) {
                report("\(path).name", "must be 1-64 of a-z 0-9 _ -", got: ConfigText.quoted(endpoint.name))
            } else if !names.insert(endpoint.name).inserted {
                report(
                    "\(path).name",
                    "must be unique (\(endpoint.name) repeats; webhooks.url is the endpoint \"default\")")
            }
            if let reason = Self.webhookURLProblem(endpoint.url) {
                report("\(path).url", "must be an http(s) URL: \(reason)", got: ConfigText.quoted(endpoint.url))
            }
            for (j, event) in endpoint.events.enumerated() where !known.contains(event) {
                report(
                    "\(path).events[\(j)]", "must be one of \(known.joined(separator: ", "))",
                    got: ConfigText.quoted(event))
            }
        }
        for (key, secret) in [
            ("webhooks.secret", webhooks.secret), ("webhooks.previousSecret", webhooks.previousSecret),
        ] {
            if let secret, let reason = Self.webhookSecretProblem(secret) { report(key, reason) }
        }
        if webhooks.enabled && webhooks.secret == nil && !failedKeyPaths.contains("webhooks.secret") {
            report(
                "webhooks.secret",
                "must be set when an endpoint is (PRESIGN_WEBHOOKS_SECRET or PRESIGN_WEBHOOKS_SECRET_FILE, whsec_ and base64)"
            )
        }
        if webhooks.previousSecret != nil && webhooks.secret == nil && !failedKeyPaths.contains("webhooks.secret") {
            report("webhooks.previousSecret", "needs webhooks.secret (the secret it is rotated to)")
        }
        check("webhooks.timeoutMs", webhooks.timeoutMs, in: 100...120_000)
        check("webhooks.maxAttempts", webhooks.maxAttempts, in: 1...1000)
        check("webhooks.backoffBaseMs", webhooks.backoffBaseMs, in: 1...86_400_000)
        check("webhooks.backoffMaxMs", webhooks.backoffMaxMs, in: 1...86_400_000)
        if webhooks.backoffMaxMs < webhooks.backoffBaseMs {
            report("webhooks.backoffMaxMs", "must be at least webhooks.backoffBaseMs", got: "\(webhooks.backoffMaxMs)")
        }
        check("webhooks.retentionHours", webhooks.retentionHours, in: 1...8760)
        check("webhooks.pollIntervalMs", webhooks.pollIntervalMs, in: 10...60_000)
        check("webhooks.concurrency", webhooks.concurrency, in: 1...64)
        // A request must end while this instance still holds the endpoint's lease (renewed every third of
        // records.leaseTtlMs), so that no other instance sends the same delivery meanwhile.
        if webhooks.enabled && webhooks.timeoutMs * 2 >= config.records.leaseTtlMs {
            report(
                "webhooks.timeoutMs", "must be under half of records.leaseTtlMs (\(config.records.leaseTtlMs))",
                got: "\(webhooks.timeoutMs)")
        }
    }

    /// Why `url` is no webhook endpoint URL, or nil: `http[s]://host[:port][/path][?query]`, visible ASCII,
    /// no user info, no fragment.
    static func webhookURLProblem(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return "the scheme must be http or https"
        }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { return "only visible ASCII (percent-encode)" }
        if url.contains("#") { return "no fragment" }
        let rest = url.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        if authority.contains("@") { return "no user info" }
        var host = authority
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            host = authority[..<colon]
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else {
                return "the port must be 1-65535"
            }
        }
        return host.isEmpty ? "no host" : nil
    }

    /// Why `secret` is no webhook secret, or nil: `whsec_` and the base64 of 16 to 1,024 bytes (never shown).
    static func webhookSecretProblem(_ secret: Secret) -> String? {
        let text = secret.unredacted
        guard text.hasPrefix("whsec_") else { return "must start with whsec_ (then the base64 of the key)" }
        var encoded = String(text.dropFirst(6))
        while encoded.utf8.count % 4 != 0 { encoded += "=" }
        guard let bytes = Base64.decode(encoded) else { return "must be whsec_ and base64 (it is not base64)" }
        guard (16...1024).contains(bytes.count) else {
            return "must hold 16 to 1024 key bytes after whsec_ (it holds \(bytes.count))"
        }
        return nil
    }
}
