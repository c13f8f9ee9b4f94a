/// HTTPS termination: where the certificate chain and the private key are, and the oldest protocol
/// version a client may negotiate. Both files are PEM; they are read at start and on `reloadTLS()`.
public struct TLSOptions: Sendable, Equatable {
    /// A TLS protocol version, spelled as in the configuration ("1.2", "1.3").
    public enum Version: String, Sendable, CaseIterable {
        /// TLS 1.2 (RFC 5246), the oldest the server ever accepts.
        case tls12 = "1.2"
        /// TLS 1.3 (RFC 8446).
        case tls13 = "1.3"
    }

    /// The server's certificate followed by any intermediates (PEM), leaf first.
    public var certificateFile: String
    /// The private key of the leaf certificate (PEM, unencrypted).
    public var privateKeyFile: String
    /// The oldest version accepted; older ones are refused in the handshake.
    public var minVersion: Version

    /// Options for the given files; TLS 1.2 or later unless told otherwise.
    public init(certificateFile: String, privateKeyFile: String, minVersion: Version = .tls12) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.minVersion = minVersion
    }
}
