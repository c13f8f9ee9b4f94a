internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
///
/// This is the one source of randomness that the modules above pass down as a parameter.
public enum SecureRandom {
    /// Fills `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        var offset = 0
        while offset < buffer.count {
            let chunk = min(buffer.count - offset, Int(Int32.max))
            guard RAND_bytes(base.advanced(by: offset).assumingMemoryBound(to: UInt8.self), Int32(chunk)) == 1 else {
                throw .randomUnavailable(detail: OpenSSLErrors.oldest())
            }
            offset += chunk
        }
    }

    /// `count` random bytes.
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        precondition(count >= 0, "a byte count is never negative")
        var bytes = [UInt8](repeating: 0, count: count)
        let failure: CryptoError? = bytes.withUnsafeMutableBytes { buffer in
            do throws(CryptoError) {
                try fill(buffer)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        return bytes
    }
}
