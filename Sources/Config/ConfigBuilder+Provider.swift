extension ConfigBuilder {
    /// Applies `s3.provider`'s preset to `s3.endpoint`, `s3.region` and `s3.addressing`, each only
    /// when no layer above the built-in defaults set it (`assigned`); the origin of a preset value
    /// is `s3.provider <name>`, so messages about it say where it came from.
    mutating func applyProviderPreset() {
        let s3 = config.s3
        let preset = S3Config.preset(s3.provider, region: s3.region, accountId: s3.accountId)
        let origin = "s3.provider \(s3.provider.rawValue)"
        if !assigned.contains("s3.region"), let region = preset.region {
            config.s3.region = region
            origins["s3.region"] = origin
        }
        // The AWS endpoint follows the region, so it is made after the region is settled.
        let final = S3Config.preset(s3.provider, region: config.s3.region, accountId: s3.accountId)
        if s3.provider == .r2 && s3.accountId.isEmpty && !assigned.contains("s3.endpoint") {
            report("s3.accountId", "is required with s3.provider r2 (it makes the endpoint), or set s3.endpoint")
        }
        if !assigned.contains("s3.endpoint"), let endpoint = final.endpoint {
            config.s3.endpoint = endpoint
            origins["s3.endpoint"] = origin
        }
        if !assigned.contains("s3.addressing"), let addressing = preset.addressing {
            config.s3.addressing = addressing
            origins["s3.addressing"] = origin
        }
    }
}
