internal import COpenSSL

/// MD5 (RFC 1321), incremental: an object's digest taken while its bytes stream past (the proof of a
/// declared `Content-MD5` at confirmation), on libcrypto's EVP code. Never for security.
///
/// A class around an `EVP_MD_CTX`, freed with it; one hasher per stream, used from one thread.
public final class MD5Hasher {
    /// libcrypto's running state.
    private let context: OpaquePointer

    /// A hasher with nothing absorbed yet.
    public init() {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate an MD5 context") }
        precondition(EVP_DigestInit_ex(context, EVP_md5(), nil) == 1, "libcrypto's MD5 failed to start")
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Absorbs `bytes`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "libcrypto's MD5 failed")
    }

    /// Absorbs `bytes`.
    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The 16-byte digest of everything absorbed; the hasher must not be used after.
    public func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(status == 1 && length == 16, "libcrypto's MD5 failed to finish")
        return digest
    }
}
