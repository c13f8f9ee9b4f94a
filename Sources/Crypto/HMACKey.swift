internal import COpenSSL

/// An HMAC-SHA256 key (RFC 2104) prepared once: the SHA-256 states after absorbing the key XOR
/// ipad and the key XOR opad.
///
/// Each message then costs a struct copy of each state plus the blocks of the message and one
/// block for the outer hash; nothing is allocated. Measured against `HMAC_CTX_copy` and
/// `EVP_MAC_CTX_dup` of a prepared context, this was the fastest (docs/sigv4.md). A value type,
/// so it is `Sendable` and may be copied to any thread. It prints as `<redacted>`: the pad states
/// are as good as the key.
public struct HMACKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// SHA-256 after absorbing key XOR 0x36 repeated to one block.
    private let inner: SHA256
    /// SHA-256 after absorbing key XOR 0x5c repeated to one block.
    private let outer: SHA256

    /// Prepares `key` (of any length; keys longer than one block are hashed first, as RFC 2104 says).
    public init(key: UnsafeRawBufferPointer) {
        let blockSize = 64
        var block = [UInt8](repeating: 0, count: blockSize)
        if key.count > blockSize {
            SHA256.hash(key).withUnsafeBytes { digest in
                for index in 0..<digest.count { block[index] = digest[index] }
            }
        } else {
            for index in 0..<key.count { block[index] = key[index] }
        }
        var innerPad = block
        var outerPad = block
        for index in 0..<blockSize {
            innerPad[index] ^= 0x36
            outerPad[index] ^= 0x5c
        }
        var inner = SHA256()
        inner.update(innerPad)
        var outer = SHA256()
        outer.update(outerPad)
        for index in 0..<blockSize {
            block[index] = 0
            innerPad[index] = 0
            outerPad[index] = 0
        }
        self.inner = inner
        self.outer = outer
    }

    /// Prepares the key `bytes`.
    public init(key bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { HMACKey(key: $0) }
    }

    /// Prepares the key held by `secret`.
    public init(key secret: Secret) {
        self = secret.withUnsafeBytes { HMACKey(key: $0) }
    }

    /// Prepares a key that is itself an HMAC output (as in SigV4's signing-key chain).
    public init(key digest: SHA256Digest) {
        self = digest.withUnsafeBytes { HMACKey(key: $0) }
    }

    /// HMAC-SHA256 of `message` under this key.
    public func authenticate(_ message: UnsafeRawBufferPointer) -> SHA256Digest {
        var innerHash = inner
        innerHash.update(message)
        let innerDigest = innerHash.finalize()
        var outerHash = outer
        innerDigest.withUnsafeBytes { outerHash.update($0) }
        return outerHash.finalize()
    }

    /// HMAC-SHA256 of `message` under this key.
    public func authenticate(_ message: some Sequence<UInt8>) -> SHA256Digest {
        let digest: SHA256Digest? = message.withContiguousStorageIfAvailable {
            authenticate(UnsafeRawBufferPointer($0))
        }
        return digest ?? Array(message).withUnsafeBytes { authenticate($0) }
    }

    /// HMAC-SHA256 of the UTF-8 bytes of `message` under this key.
    public func authenticate(_ message: String) -> SHA256Digest {
        var message = message
        return message.withUTF8 { authenticate(UnsafeRawBufferPointer($0)) }
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }

    /// Always `<redacted>`.
    public var debugDescription: String { "<redacted>" }

    /// A mirror with no children, so `dump` shows nothing of the pad states.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
