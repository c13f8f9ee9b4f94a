extension ConfigValidator {
    /// The `tls` section: a known minimum version, and both files readable when TLS is on.
    mutating func validateTLS() {
        let tls = config.tls
        guard tls.enabled else { return }
        for (keyPath, path) in [
            ("tls.certificateFile", tls.certificateFile), ("tls.privateKeyFile", tls.privateKeyFile),
        ] {
            if path.isEmpty {
                report(keyPath, "is required when tls.enabled is true")
            } else {
                checkReadable(keyPath, path)
            }
        }
    }
}
