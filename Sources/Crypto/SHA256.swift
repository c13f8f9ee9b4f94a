internal import COpenSSL

/// SHA-256 (FIPS 180-4), one-shot or incremental, on libcrypto's SHA-NI/AVX code.
///
/// A value type around `SHA256_CTX`: copying a hasher forks it (the state is a plain struct, no heap
/// handle), which is what makes prepared HMAC pad states cheap. `SHA256_CTX` is OpenSSL's low-level
/// API (deprecated in 3.0, still shipped); measured on this project it is about twice as fast as EVP
/// for the short messages SigV4 hashes, see docs/sigv4.md.
public struct SHA256: Sendable {
    /// The running state.
    private var context = SHA256_CTX()

    /// A hasher with nothing absorbed yet.
    public init() {
        presignd_SHA256_Init(&context)
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        presignd_SHA256_Update(&context, base, bytes.count)
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Absorbs the UTF-8 bytes of `string`.
    public mutating func update(_ string: String) {
        var string = string
        string.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// The digest of everything absorbed; the hasher is used up.
    public consuming func finalize() -> SHA256Digest {
        var digest = SHA256Digest()
        digest.withUnsafeMutableBytes { output in
            _ = presignd_SHA256_Final(output.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
        }
        return digest
    }

    /// The digest of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of the UTF-8 bytes of `string`.
    public static func hash(_ string: String) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(string)
        return hasher.finalize()
    }
}
