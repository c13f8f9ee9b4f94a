internal import COpenSSL

extension PublicKey {
    /// A public key from a DER SubjectPublicKeyInfo (RFC 5280, section 4.1.2.7), which must be
    /// the whole of `der`.
    public convenience init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let decoded: OpaquePointer?? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return nil }
            guard let base = buffer.baseAddress, let cursor, cursor - base == buffer.count else {
                EVP_PKEY_free(key)
                return .some(nil)
            }
            return key
        }
        switch decoded {
        case .some(.some(let key)): try self.init(adopting: key)
        case .some(.none): throw .invalidKey(reason: "bytes after the SubjectPublicKeyInfo")
        case .none:
            ERR_clear_error()
            throw .invalidKey(reason: "not a DER SubjectPublicKeyInfo")
        }
    }

    /// An RSA public key from its modulus `n` and public exponent `e`, big-endian unsigned
    /// integers (as in a JWK, RFC 7518, section 6.3.1; leading zero bytes are allowed).
    ///
    /// The modulus must be odd and 2048 to 16384 bits long, the exponent odd, greater than 1 and
    /// at most 64 bits.
    public convenience init(rsaModulus modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        guard modulus.last.map({ $0 & 1 == 1 }) == true else { throw .invalidKey(reason: "the RSA modulus is even") }
        let significant = Array(exponent.drop { $0 == 0 })
        guard significant.last.map({ $0 & 1 == 1 }) == true, significant.count <= 8, significant != [1] else {
            throw .invalidKey(reason: "the RSA exponent must be odd, greater than 1 and at most 64 bits")
        }
        // RFC 8017, appendix A.1.1: RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
        let rsaPublicKey = DERWriter.sequence(
            DERWriter.unsignedInteger(modulus), DERWriter.unsignedInteger(significant))
        let info = DERWriter.sequence(
            DERWriter.sequence(DERWriter.rsaEncryption, DERWriter.null), DERWriter.bitString(rsaPublicKey))
        try self.init(subjectPublicKeyInfo: info)
    }

    /// A P-256 public key from its affine coordinates, each exactly 32 big-endian bytes (as in a
    /// JWK, RFC 7518, section 6.2.1). The point must be on the curve.
    public convenience init(p256X x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == ECDSASignature.coordinateBytes, y.count == ECDSASignature.coordinateBytes else {
            throw .invalidKey(reason: "P-256 coordinates must be 32 bytes each (got \(x.count) and \(y.count))")
        }
        // RFC 5480, section 2: the algorithm names the curve; the key is the uncompressed point (SEC 1, 2.3.3).
        let info = DERWriter.sequence(
            DERWriter.sequence(DERWriter.ecPublicKey, DERWriter.secp256r1), DERWriter.bitString([0x04] + x + y))
        try self.init(subjectPublicKeyInfo: info)
    }

    /// The modulus and public exponent, big-endian without leading zeros, of an RSA key (nil otherwise).
    public var rsaNumbers: (modulus: [UInt8], exponent: [UInt8])? {
        guard case .rsa = kind, let modulus = bigNumber("n", width: nil), let exponent = bigNumber("e", width: nil)
        else { return nil }
        return (modulus, exponent)
    }

    /// The affine coordinates, 32 bytes each, of a P-256 key (nil otherwise).
    public var p256Point: (x: [UInt8], y: [UInt8])? {
        guard case .ecP256 = kind, let x = bigNumber("qx", width: ECDSASignature.coordinateBytes),
            let y = bigNumber("qy", width: ECDSASignature.coordinateBytes)
        else { return nil }
        return (x, y)
    }

    /// The DER SubjectPublicKeyInfo of this key.
    public var subjectPublicKeyInfo: [UInt8] {
        let length = i2d_PUBKEY(handle, nil)
        guard length > 0 else { return [] }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(handle, &cursor)
        }
        return written == length ? der : []
    }

    /// The big-number parameter `name` of the key, big-endian, left-padded to `width` when given.
    private func bigNumber(_ name: String, width: Int?) -> [UInt8]? {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(handle, name, &number) == 1, let number else {
            ERR_clear_error()
            return nil
        }
        defer { BN_free(number) }
        let size = width ?? (Int(BN_num_bits(number)) + 7) / 8
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32(size)) }
        return written == Int32(size) ? bytes : nil
    }
}
