/// The errors of the Crypto module.
public enum CryptoError: Error, Sendable, Equatable {
    /// OpenSSL's random generator could not produce bytes (it could not seed itself, for instance);
    /// `detail` is OpenSSL's error string.
    case randomUnavailable(detail: String)
    /// Bytes that do not make a usable key: a PEM document without a key block, a block that does
    /// not decode, numbers that make no key, a point not on the curve. `reason` never quotes key material.
    case invalidKey(reason: String)
    /// A well-formed key this module does not use: another algorithm, an RSA key shorter than 2048
    /// bits, an elliptic curve other than P-256.
    case unsupportedKey(reason: String)
    /// OpenSSL could not produce a signature; `detail` is OpenSSL's error string.
    case signingFailed(detail: String)
}
