extension ConfigValidator {
    /// The `uppy` and `cors` sections.
    mutating func validateUppy() {
        let uppy = config.uppy
        if let reason = Self.prefixProblem(uppy.prefix) {
            report("uppy.prefix", "must be a path such as /s3: \(reason)", got: ConfigText.quoted(uppy.prefix))
        }
        if uppy.enabled, config.type(named: uppy.defaultType) == nil {
            report("uppy.defaultType", "must name a type in types", got: ConfigText.quoted(uppy.defaultType))
        }
        check("uppy.urlExpiresSeconds", uppy.urlExpiresSeconds, in: 1...Self.maxExpiresSeconds)
        check("uppy.abortAfterSeconds", uppy.abortAfterSeconds, in: 60...30 * 86_400)
        check("uppy.janitorMaxAborts", uppy.janitorMaxAborts, in: 1...100_000)
        check("uppy.completeTimeoutMs", uppy.completeTimeoutMs, in: 1...3_600_000)
        check("uppy.completeMaxBodyBytes", uppy.completeMaxBodyBytes, in: 1024...16_777_216)

        let multipart = config.multipart
        if multipart.enabled, config.type(named: uppy.defaultType) == nil {
            report("uppy.defaultType", "must name a type in types", got: ConfigText.quoted(uppy.defaultType))
        }
        check("multipart.backgroundUrlSeconds", multipart.backgroundUrlSeconds, in: 60...Self.maxExpiresSeconds)
        check("multipart.autoCompleteAfterSeconds", multipart.autoCompleteAfterSeconds, in: 0...7 * 86_400)
        check("multipart.checkEverySeconds", multipart.checkEverySeconds, in: 1...86_400)
        check("multipart.maxParts", multipart.maxParts, in: 1...10_000)

        let cors = config.cors
        for (i, origin) in cors.allowedOrigins.enumerated() {
            if let reason = Self.originProblem(origin) {
                report(
                    "cors.allowedOrigins[\(i)]", "must be scheme://host[:port] exactly (no path, no *): \(reason)",
                    got: ConfigText.quoted(origin))
            }
        }
        for (i, header) in cors.allowedHeaders.enumerated()
        where header.isEmpty || header != header.lowercased() || !header.allSatisfy(Self.tokenCharacters.contains) {
            report("cors.allowedHeaders[\(i)]", "must be a lower-case header name", got: ConfigText.quoted(header))
        }
        check("cors.maxAgeSeconds", cors.maxAgeSeconds, in: 0...86_400)
    }

    /// Why `prefix` cannot be the routes' prefix, or nil: `/` then segments of `[a-z0-9_-]`, no
    /// trailing `/`, and not a path the API already serves.
    static func prefixProblem(_ prefix: String) -> String? {
        guard prefix.hasPrefix("/"), prefix.count >= 2 else { return "it starts with / and names a segment" }
        guard !prefix.hasSuffix("/"), !prefix.contains("//") else { return "no trailing or double /" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-/")
        guard prefix.count <= 64, prefix.allSatisfy(allowed.contains) else { return "only [a-z0-9_-/], 64 at most" }
        let taken = ["/images", "/presigned-url", "/v1", "/healthz", "/readyz", "/metrics", "/openapi.yaml"]
        for t in taken where prefix == t || prefix.hasPrefix(t + "/") { return "\(t) is the API's own" }
        return nil
    }

    /// Why `origin` is not an exact browser origin (`http(s)://host[:port]`), or nil.
    static func originProblem(_ origin: String) -> String? {
        guard origin.hasPrefix("http://") || origin.hasPrefix("https://") else { return "scheme http or https" }
        guard origin == origin.lowercased() else { return "lower case, as browsers send it" }
        return httpURLProblem(origin, allowsPath: false)
    }
}
