extension ConfigValidator {
    /// The `limits` section: positive rates and a burst of 1 second to 1 hour; trusted proxies that parse,
    /// and some when `X-Forwarded-For` is trusted.
    mutating func validateLimits() {
        let limits = config.limits
        check("limits.issuePerUserPerMinute", limits.issuePerUserPerMinute, in: 1...1_000_000)
        check("limits.issuePerAddressPerMinute", limits.issuePerAddressPerMinute, in: 1...1_000_000)
        check("limits.confirmPerUserPerMinute", limits.confirmPerUserPerMinute, in: 1...1_000_000)
        check("limits.confirmPerAddressPerMinute", limits.confirmPerAddressPerMinute, in: 1...1_000_000)
        check("limits.uppyPerUserPerMinute", limits.uppyPerUserPerMinute, in: 1...1_000_000)
        check("limits.uppyPerAddressPerMinute", limits.uppyPerAddressPerMinute, in: 1...1_000_000)
        check("limits.burst", limits.burst, in: 1...3600)
        check("limits.uploadsPerUserPerDay", limits.uploadsPerUserPerDay, in: 0...1_000_000_000)
        check("limits.bytesPerUserPerDay", limits.bytesPerUserPerDay, in: 0...(1 << 50))
        check("limits.syncIntervalMs", limits.syncIntervalMs, in: 10...60_000)
        for (index, entry) in limits.trustedProxies.enumerated() where AddressRange(entry) == nil {
            report(
                "limits.trustedProxies", "entry \(index + 1) must be an IP address or a CIDR block",
                got: ConfigText.quoted(entry))
        }
        if limits.trustForwardedFor && limits.trustedProxies.isEmpty {
            report(
                "limits.trustedProxies",
                "must list the proxies (addresses or CIDR blocks) whose X-Forwarded-For is trusted when "
                    + "limits.trustForwardedFor is true; otherwise any caller could pick its own address")
        }
    }
}
