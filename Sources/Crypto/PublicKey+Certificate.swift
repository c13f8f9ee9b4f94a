internal import COpenSSL

extension PublicKey {
    /// The subject public key of the X.509 certificate that opens a PEM document (a `CERTIFICATE`
    /// block: what Amazon SNS's `SigningCertURL` serves). Any other first block, or none, is refused.
    /// Only the key is taken: the certificate's dates, issuer and chain are not checked (the caller
    /// trusts the certificate by where it came from).
    public static func certificateKey(pem: [UInt8]) throws(CryptoError) -> PublicKey {
        try MemoryBIO.reading(pem) { bio throws(CryptoError) -> PublicKey in
            guard let block = try PEMBlock.read(from: bio) else { throw .invalidKey(reason: "no PEM block found") }
            guard block.label == "CERTIFICATE" else {
                throw .invalidKey(reason: "PEM block 1 (\(block.label)) is not a certificate")
            }
            return try block.publicKey(position: 1)
        }
    }
}
