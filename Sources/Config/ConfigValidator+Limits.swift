extension ConfigValidator {
    /// The `limits` section: positive rates and a burst of 1 second to 1 hour.
    mutating func validateLimits() {
        let limits = config.limits
        check("limits.issuePerUserPerMinute", limits.issuePerUserPerMinute, in: 1...1_000_000)
        check("limits.issuePerAddressPerMinute", limits.issuePerAddressPerMinute, in: 1...1_000_000)
        check("limits.confirmPerUserPerMinute", limits.confirmPerUserPerMinute, in: 1...1_000_000)
        check("limits.confirmPerAddressPerMinute", limits.confirmPerAddressPerMinute, in: 1...1_000_000)
        check("limits.burst", limits.burst, in: 1...3600)
    }
}
