extension ConfigValidator {
    /// The provider preset and the credential settings of the `s3` section.
    mutating func validateS3Provider() {
        let s3 = config.s3
        let names = S3Config.CredentialSource.allCases.map(\.rawValue)
        if s3.credentialSources.isEmpty {
            report("s3.credentialSources", "must name at least one of \(names.joined(separator: ", "))")
        }
        for name in s3.credentialSources where S3Config.CredentialSource(rawValue: name) == nil {
            report(
                "s3.credentialSources", "must hold only \(names.joined(separator: ", "))", got: ConfigText.quoted(name))
        }
        if Set(s3.credentialSources).count != s3.credentialSources.count {
            report("s3.credentialSources", "names a source twice")
        }
        for name in s3.checksums where !StoreChecksums.names.contains(name) {
            report(
                "s3.checksums",
                "must hold only \(StoreChecksums.names.joined(separator: ", ")) (empty: the provider's)",
                got: ConfigText.quoted(name))
        }
        if s3.checksums.contains("none") && s3.checksums.count > 1 {
            report("s3.checksums", "none stands alone")
        }
        if !s3.accountId.isEmpty
            && (s3.accountId.count > 64 || !s3.accountId.allSatisfy({ Self.lowerAlphanumerics.contains($0) }))
        {
            report("s3.accountId", "must be up to 64 characters of a-z 0-9", got: ConfigText.quoted(s3.accountId))
        }
        if let host = s3.connectHost,
            Self.httpURLProblem("http://" + host, allowsPath: false) != nil
                || (host.contains(":") && !host.hasPrefix("["))
        {
            report(
                "s3.connectHost", "must be empty, a host name or an IP address (no port)", got: ConfigText.quoted(host))
        }
        if let sts = s3.stsEndpoint, let reason = Self.httpURLProblem(sts, allowsPath: false) {
            report("s3.stsEndpoint", "must be empty or http(s)://host[:port]: \(reason)", got: ConfigText.quoted(sts))
        }
        check("s3.refreshBeforeExpirySeconds", s3.refreshBeforeExpirySeconds, in: 0...43_200)
        check("s3.refreshJitterSeconds", s3.refreshJitterSeconds, in: 0...3600)
        check("s3.minimumUrlLifetimeSeconds", s3.minimumUrlLifetimeSeconds, in: 1...3600)
    }
}
