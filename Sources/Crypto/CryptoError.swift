internal import COpenSSL

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

extension CryptoError {
    /// The oldest error on OpenSSL's thread-local queue as text, and the queue emptied.
    static func openSSLErrorDetail() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        if code == 0 { return "no OpenSSL error queued" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
