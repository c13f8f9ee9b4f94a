internal import COpenSSL

extension PublicKey {
    /// Every public key in a PEM document (RFC 7468), in order.
    ///
    /// Accepted blocks: `PUBLIC KEY` (SubjectPublicKeyInfo), `RSA PUBLIC KEY` (PKCS #1) and
    /// `CERTIFICATE` (X.509: its subject public key; the certificate itself, its dates and issuer
    /// are not checked). A private key block is refused (the server must never hold one), as is
    /// any other block, an encrypted block, or a document without a block. Text outside blocks is
    /// ignored. Errors give the block's position and label, never its contents.
    public static func keys(pem: [UInt8]) throws(CryptoError) -> [PublicKey] {
        let keys = try MemoryBIO.reading(pem) { bio throws(CryptoError) in
            var keys: [PublicKey] = []
            while true {
                guard let block = try PEMBlock.read(from: bio) else { break }
                keys.append(try block.publicKey(position: keys.count + 1))
            }
            return keys
        }
        guard !keys.isEmpty else { throw .invalidKey(reason: "no PEM block found") }
        return keys
    }
}

/// One block of a PEM document: its label and its decoded DER bytes.
struct PEMBlock {
    /// The label between `-----BEGIN ` and `-----`.
    let label: String
    /// The base64-decoded contents.
    let der: [UInt8]
    /// Whether the block had RFC 1421 headers (`Proc-Type`, `DEK-Info`: an encrypted legacy block).
    let hasHeaders: Bool

    /// The next block of `bio`, or nil at the end of the document.
    static func read(from bio: OpaquePointer) throws(CryptoError) -> PEMBlock? {
        var name: UnsafeMutablePointer<CChar>?
        var header: UnsafeMutablePointer<CChar>?
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = PEM_read_bio(bio, &name, &header, &data, &length)
        defer {
            presignd_OPENSSL_free(name)
            presignd_OPENSSL_free(header)
            presignd_OPENSSL_free(data)
        }
        guard status == 1, let name, let data else {
            let code = ERR_peek_last_error()
            ERR_clear_error()
            if ERR_GET_REASON(code) == PEM_R_NO_START_LINE { return nil }
            throw .invalidKey(reason: "a PEM block that does not decode (bad base64 or no END line)")
        }
        let label = String(cString: name)
        let hasHeaders = header.map { $0.pointee != 0 } ?? false
        return PEMBlock(
            label: label, der: Array(UnsafeBufferPointer(start: data, count: length)), hasHeaders: hasHeaders)
    }

    /// The public key this block holds; `position` (1-based) names the block in errors.
    func publicKey(position: Int) throws(CryptoError) -> PublicKey {
        let which = "PEM block \(position) (\(label))"
        guard !hasHeaders else { throw .invalidKey(reason: "\(which) is encrypted") }
        switch label {
        case "PUBLIC KEY":
            return try PublicKey(adopting: decode(which, free: EVP_PKEY_free) { d2i_PUBKEY(nil, &$0, $1) })
        case "RSA PUBLIC KEY":
            return try PublicKey(
                adopting: decode(which, free: EVP_PKEY_free) { d2i_PublicKey(EVP_PKEY_RSA, nil, &$0, $1) })
        case "CERTIFICATE":
            let certificate = try decode(which, free: X509_free) { d2i_X509(nil, &$0, $1) }
            defer { X509_free(certificate) }
            guard let key = X509_get_pubkey(certificate) else {
                ERR_clear_error()
                throw .invalidKey(reason: "\(which) holds a public key OpenSSL cannot use")
            }
            return try PublicKey(adopting: key)
        case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
            throw .invalidKey(reason: "\(which) is a private key: give only the public key or the certificate")
        default:
            throw .invalidKey(reason: "\(which) is not a public key or a certificate")
        }
    }

    /// Runs the DER decoder `decoder` over the whole block; fails (releasing what it decoded with
    /// `free`) unless it decodes every byte.
    private func decode(
        _ which: String, free: (OpaquePointer) -> Void, _ decoder: (inout UnsafePointer<UInt8>?, Int) -> OpaquePointer?
    ) throws(CryptoError) -> OpaquePointer {
        let result: OpaquePointer?? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let object = decoder(&cursor, buffer.count) else { return nil }
            guard let base = buffer.baseAddress, let cursor, cursor - base == buffer.count else {
                free(object)
                return .some(nil)
            }
            return object
        }
        switch result {
        case .some(.some(let object)): return object
        case .some(.none):
            throw .invalidKey(reason: "\(which) has bytes after its DER value")
        case .none:
            ERR_clear_error()
            throw .invalidKey(reason: "\(which) does not decode")
        }
    }
}
