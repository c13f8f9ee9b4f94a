internal import COpenSSL

/// A private signing key (RSA of 2048 bits or more, or ECDSA on P-256), read from PEM.
///
/// The server itself only verifies; this type exists for tools and tests that mint tokens
/// (`Tests/AuthTests` signs with throwaway keys made by `openssl genpkey`). Owns an OpenSSL
/// `EVP_PKEY`, freed in `deinit`, and prints as `<redacted>`.
public final class PrivateKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The OpenSSL key.
    private let handle: OpaquePointer
    /// The public half.
    public let publicKey: PublicKey

    /// The first private key of the unencrypted PEM document `pem` (`PRIVATE KEY`, `RSA PRIVATE KEY`
    /// or `EC PRIVATE KEY`).
    public init(pem: [UInt8]) throws(CryptoError) {
        let key = try MemoryBIO.reading(pem) { bio throws(CryptoError) in
            // A passphrase callback that gives nothing: an encrypted key fails instead of prompting on a terminal.
            guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
                ERR_clear_error()
                throw .invalidKey(reason: "no unencrypted private key PEM block")
            }
            return key
        }
        let length = i2d_PUBKEY(key, nil)
        var der = [UInt8](repeating: 0, count: max(Int(length), 0))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        do throws(CryptoError) {
            guard length > 0, written == length else { throw .invalidKey(reason: "no public key") }
            publicKey = try PublicKey(subjectPublicKeyInfo: der)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        handle = key
    }

    deinit {
        EVP_PKEY_free(handle)
    }

    /// The signature of `message` under `algorithm`; ECDSA signatures come as the 64 bytes r || s.
    ///
    /// Throws `unsupportedKey` when `algorithm` does not use this key's type.
    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] {
        guard algorithm.usesKeys(of: publicKey.kind) else {
            throw .unsupportedKey(reason: "\(publicKey.kind) keys do not sign \(algorithm)")
        }
        guard let context = EVP_MD_CTX_new() else { throw .signingFailed(detail: OpenSSLErrors.oldest()) }
        defer { EVP_MD_CTX_free(context) }
        let digest = algorithm == .rsaPKCS1v15SHA1 ? EVP_sha1() : EVP_sha256()
        guard EVP_DigestSignInit(context, nil, digest, nil, handle) == 1 else {
            throw .signingFailed(detail: OpenSSLErrors.oldest())
        }
        var length = 0
        let sized = message.withUnsafeBufferPointer { EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }
        guard sized == 1 else { throw .signingFailed(detail: OpenSSLErrors.oldest()) }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = signature.withUnsafeMutableBufferPointer { output in
            message.withUnsafeBufferPointer {
                EVP_DigestSign(context, output.baseAddress, &length, $0.baseAddress, $0.count)
            }
        }
        guard signed == 1 else { throw .signingFailed(detail: OpenSSLErrors.oldest()) }
        signature.removeSubrange(length...)
        switch algorithm {
        case .rsaPKCS1v15SHA256, .rsaPKCS1v15SHA1:
            return signature
        case .ecdsaP256SHA256:
            guard let raw = ECDSASignature.raw(fromDER: signature) else {
                throw .signingFailed(detail: "OpenSSL returned an ECDSA signature that is not DER")
            }
            return raw
        }
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }

    /// Always `<redacted>`.
    public var debugDescription: String { "<redacted>" }
}
