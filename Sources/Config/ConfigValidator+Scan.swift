extension ConfigValidator {
    /// The `scan` section: the clamd address and the scan's bounds.
    mutating func validateScan() {
        let scan = config.scan
        if let reason = Self.clamdAddressProblem(scan.clamdAddress) {
            report(
                "scan.clamdAddress", "must be tcp://host:port or unix:/absolute/path: \(reason)",
                got: ConfigText.quoted(scan.clamdAddress))
        }
        // clamd's StreamMaxLength is at most 4 GiB; an INSTREAM chunk's length is 4 bytes.
        check("scan.maxBytes", scan.maxBytes, in: 1...4_294_967_295)
        check("scan.timeoutMs", scan.timeoutMs, in: 100...3_600_000)
        check("scan.chunkBytes", scan.chunkBytes, in: 1024...16_777_216)
        check("scan.retryBaseMs", scan.retryBaseMs, in: 1...86_400_000)
        check("scan.retryMaxMs", scan.retryMaxMs, in: 1...86_400_000)
        if scan.retryMaxMs < scan.retryBaseMs {
            report("scan.retryMaxMs", "must be at least scan.retryBaseMs", got: "\(scan.retryMaxMs)")
        }
        check("scan.pollIntervalMs", scan.pollIntervalMs, in: 10...60_000)
    }

    /// Why `address` is no clamd address, or nil: `tcp://host:port` (a port 1-65535) or `unix:/path`.
    static func clamdAddressProblem(_ address: String) -> String? {
        if address.hasPrefix("unix:") {
            let path = address.dropFirst("unix:".count)
            return path.hasPrefix("/") && path.count > 1 ? nil : "the socket path must be absolute"
        }
        guard address.hasPrefix("tcp://") else { return "it starts with neither tcp:// nor unix:" }
        let rest = address.dropFirst("tcp://".count)
        guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex else { return "it names no host:port" }
        guard let port = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(port) else {
            return "the port must be 1-65535"
        }
        return nil
    }
}
