internal import COpenSSL

/// Conversions of P-256 ECDSA signatures between JOSE's fixed-width r || s (RFC 7518, section 3.4)
/// and the DER `ECDSA-Sig-Value` SEQUENCE of two INTEGERs (RFC 3279, section 2.2.3) that OpenSSL uses.
public enum ECDSASignature {
    /// Bytes of r and of s in the fixed-width form for P-256.
    public static let coordinateBytes = 32

    /// The DER form of the 64-byte `raw` r || s, or nil when `raw` is not 64 bytes.
    ///
    /// Zero or out-of-range r and s are converted as they are; verification rejects them.
    public static func der(fromRaw raw: UnsafeRawBufferPointer) -> [UInt8]? {
        guard raw.count == 2 * coordinateBytes, let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return nil
        }
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(base, Int32(coordinateBytes), nil) else { return nil }
        guard let s = BN_bin2bn(base + coordinateBytes, Int32(coordinateBytes), nil) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {  // takes ownership of r and s on success
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// The DER form of the 64-byte `raw` r || s, or nil when `raw` is not 64 bytes.
    public static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        raw.withUnsafeBytes { der(fromRaw: $0) }
    }

    /// The 64-byte r || s form of a DER `der` signature, or nil when it is not one DER
    /// `ECDSA-Sig-Value` whose r and s fit in 32 bytes.
    public static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                ERR_clear_error()
                return nil
            }
            defer { ECDSA_SIG_free(signature) }
            guard let cursor, let base = buffer.baseAddress, cursor - base == buffer.count else { return nil }
            var raw = [UInt8](repeating: 0, count: 2 * coordinateBytes)
            let fits = raw.withUnsafeMutableBufferPointer { output -> Bool in
                guard let start = output.baseAddress else { return false }
                let size = Int32(coordinateBytes)
                return BN_bn2binpad(ECDSA_SIG_get0_r(signature), start, size) == size
                    && BN_bn2binpad(ECDSA_SIG_get0_s(signature), start + coordinateBytes, size) == size
            }
            return fits ? raw : nil
        }
    }
}
