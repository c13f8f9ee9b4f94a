internal import COpenSSL

/// A SHA-256 (or HMAC-SHA256) output: 32 bytes held inline, with no heap allocation.
///
/// Equality is constant-time (`CRYPTO_memcmp`), so comparing a received MAC with an expected one
/// through `==` leaks nothing about where they differ.
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The length of a SHA-256 output in bytes.
    public static let byteCount = 32

    /// The 32 bytes, in order, as raw memory (the integers are only storage).
    @usableFromInline var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// A digest of 32 zero bytes, to be filled through `withUnsafeMutableBytes`.
    init() {}

    /// The digest made of exactly 32 `bytes`, or nil for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        withUnsafeMutableBytes { destination in
            for (index, byte) in bytes.enumerated() { destination[index] = byte }
        }
    }

    /// Calls `body` with the 32 bytes; the pointer must not escape.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage, body)
    }

    /// Calls `body` with the 32 bytes, writable; the pointer must not escape.
    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeMutableBytes(of: &storage, body)
    }

    /// The 32 bytes as an array.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The 64 lower-case hexadecimal digits of the digest.
    public var hex: String { withUnsafeBytes { Hex.encode($0) } }

    /// Appends the 64 lower-case hexadecimal digits to `output`.
    public func appendHex(to output: inout [UInt8]) {
        withUnsafeBytes { Hex.append($0, to: &output) }
    }

    /// The hexadecimal form (a digest is not a secret; a derived key is kept in an `HMACKey` instead).
    public var description: String { hex }

    /// Constant-time equality of the 32 bytes.
    public static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in ConstantTime.equals(left, right) } }
    }

    /// Feeds the 32 bytes to `hasher`.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
