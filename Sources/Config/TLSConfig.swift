/// The `tls` section: optional HTTPS termination with OpenSSL's libssl.
public struct TLSConfig: Sendable, Equatable {
    /// Whether the main port speaks HTTPS instead of plain HTTP.
    public var enabled: Bool
    /// PEM file with the server certificate (and its chain).
    public var certificateFile: String
    /// PEM file with the certificate's private key. The path is not a secret; the file's contents are,
    /// and they are never read into the configuration.
    public var privateKeyFile: String
    /// Lowest protocol version accepted: `1.2` or `1.3`.
    public var minVersion: String

    /// TLS settings; every argument defaults to the documented default.
    public init(
        enabled: Bool = false, certificateFile: String = "", privateKeyFile: String = "", minVersion: String = "1.2"
    ) {
        self.enabled = enabled
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.minVersion = minVersion
    }
}
