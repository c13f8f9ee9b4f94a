internal import COpenSSL

/// Read-only OpenSSL memory BIOs over Swift byte arrays, for the PEM readers.
enum MemoryBIO {
    /// Calls `body` with a memory BIO reading `bytes`, and frees it afterwards.
    ///
    /// `BIO_new_mem_buf` does not copy, so the BIO lives only inside this call, while the array's
    /// storage is pinned by `withUnsafeBytes`; it must not escape `body`.
    static func reading<Value>(
        _ bytes: [UInt8], _ body: (OpaquePointer) throws(CryptoError) -> Value
    ) throws(CryptoError) -> Value {
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { throw .invalidKey(reason: "no PEM block found") }
        let result: Result<Value, CryptoError> = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
                return .failure(.invalidKey(reason: OpenSSLErrors.oldest()))
            }
            defer { BIO_free(bio) }
            do throws(CryptoError) {
                return .success(try body(bio))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
