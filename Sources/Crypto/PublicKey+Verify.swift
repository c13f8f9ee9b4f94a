internal import COpenSSL

extension PublicKey {
    /// True when `signature` is a valid signature of `message` by this key under `algorithm`.
    ///
    /// False, never an error, for every kind of mismatch: a scheme that does not use this key's
    /// type (so an RSA key never checks an ECDSA signature, nor the reverse), a signature of the
    /// wrong length, or a signature that does not verify.
    public func isValidSignature(
        _ signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm
    ) -> Bool {
        guard algorithm.usesKeys(of: kind) else { return false }
        switch kind {
        case .rsa(let bits):
            guard signature.count == (bits + 7) / 8 else { return false }
            return verifyDigestSignature(signature, message: message, sha1: algorithm == .rsaPKCS1v15SHA1)
        case .ecP256:
            guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
            return der.withUnsafeBytes { verifyDigestSignature($0, message: message, sha1: false) }
        }
    }

    /// True when `signature` is a valid signature of `message` by this key under `algorithm`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        signature.withUnsafeBytes { signatureBytes in
            message.withUnsafeBytes { isValidSignature(signatureBytes, for: $0, algorithm: algorithm) }
        }
    }

    /// `EVP_DigestVerify` with SHA-256 (SHA-1 when `sha1`) over `message`; for RSA keys PKCS #1 v1.5 padding
    /// (OpenSSL's default).
    private func verifyDigestSignature(_ signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, sha1: Bool)
        -> Bool
    {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, sha1 ? EVP_sha1() : EVP_sha256(), nil, handle) == 1 else {
            ERR_clear_error()
            return false
        }
        let empty: UInt8 = 0
        let verified = withUnsafePointer(to: empty) { placeholder -> Int32 in
            let signaturePointer = signature.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? placeholder
            let messagePointer = message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? placeholder
            return EVP_DigestVerify(context, signaturePointer, signature.count, messagePointer, message.count)
        }
        if verified != 1 { ERR_clear_error() }
        return verified == 1
    }
}
