/// The `tls` section: optional HTTPS termination with OpenSSL's libssl.
public struct TLSConfig: Sendable, Equatable {
    /// Whether the main port speaks HTTPS instead of plain HTTP.
    public var enabled: Bool
    /// PEM file with the server certificate (and its chain).
    public var certificateFile: String
    /// PEM file with the certificate's private key. The path is not a secret; the file's contents are,
    /// and they are never read into the configuration.
    public var privateKeyFile: String
    /// The lowest protocol versions a server may accept.
    public enum Version: String, Sendable, CaseIterable {
        /// TLS 1.2 (`"1.2"`).
        case tls12 = "1.2"
        /// TLS 1.3 (`"1.3"`).
        case tls13 = "1.3"
    }

    /// Lowest protocol version accepted.
    public var minVersion: Version

    /// TLS settings; every argument defaults to the documented default.
    public init(
        enabled: Bool = false, certificateFile: String = "", privateKeyFile: String = "", minVersion: Version = .tls12
    ) {
        self.enabled = enabled
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.minVersion = minVersion
    }
}
