extension RecordsConfig: CustomStringConvertible, CustomReflectable {
    /// `url` with any password masked, safe to print or log.
    public var maskedURL: String { Self.maskPassword(in: url) }

    /// The settings with the URL's password masked.
    public var description: String {
        "RecordsConfig(url: \(maskedURL), intentBatchSize: \(intentBatchSize), "
            + "groupCommitMaxBatch: \(groupCommitMaxBatch), poolSize: \(poolSize), "
            + "janitorIntervalMs: \(janitorIntervalMs), janitorBatchSize: \(janitorBatchSize), "
            + "intentIndexCapacity: \(intentIndexCapacity), intentQueueLimit: \(intentQueueLimit), "
            + "intentCommitTimeoutMs: \(intentCommitTimeoutMs), "
            + "deleteUnconfirmedObjects: \(deleteUnconfirmedObjects), busyTimeoutMs: \(busyTimeoutMs))"
    }

    /// A mirror whose `url` child is masked, so `dump` never shows the password.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "url": maskedURL, "intentBatchSize": intentBatchSize,
                "groupCommitMaxBatch": groupCommitMaxBatch, "poolSize": poolSize,
                "janitorIntervalMs": janitorIntervalMs, "janitorBatchSize": janitorBatchSize,
                "intentIndexCapacity": intentIndexCapacity, "intentQueueLimit": intentQueueLimit,
                "intentCommitTimeoutMs": intentCommitTimeoutMs,
                "deleteUnconfirmedObjects": deleteUnconfirmedObjects, "busyTimeoutMs": busyTimeoutMs,
            ], displayStyle: .struct)
    }

    /// `url` with the password of its user-info (`user:password@`) and any `password=` query
    /// parameter replaced by `<redacted>`; other URLs are returned unchanged.
    public static func maskPassword(in url: String) -> String {
        let characters = Array(url)
        var schemeEnd: Int?
        for position in 0..<max(characters.count - 2, 0)
        where characters[position] == ":" && characters[position + 1] == "/" && characters[position + 2] == "/" {
            schemeEnd = position + 3
            break
        }
        guard let schemeEnd else { return url }
        let isAuthorityEnd: (Character) -> Bool = { $0 == "/" || $0 == "?" || $0 == "#" }
        let authorityEnd = characters[schemeEnd...].firstIndex(where: isAuthorityEnd) ?? characters.count
        var result = String(characters[..<schemeEnd])
        let authority = characters[schemeEnd..<authorityEnd]
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            result += String(authority[...colon]) + "<redacted>" + String(authority[at...])
        } else {
            result += String(authority)
        }
        var rest = characters[authorityEnd...]
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        guard let question = rest.firstIndex(of: "?") else { return result + String(rest) + fragment }
        result += String(rest[...question])
        let pairs = String(rest[(question + 1)...]).split(separator: "&", omittingEmptySubsequences: false)
        result += pairs.map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return name.lowercased() == "password" ? name + "=<redacted>" : String(pair)
        }.joined(separator: "&")
        return result + fragment
    }
}
