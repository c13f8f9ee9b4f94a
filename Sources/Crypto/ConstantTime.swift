internal import COpenSSL

/// Comparisons whose running time does not depend on where the inputs differ (`CRYPTO_memcmp`).
public enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same bytes. Inputs of different lengths are unequal at
    /// once: only the length leaks, never the contents.
    public static func equals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        return CRYPTO_memcmp(left, right, lhs.count) == 0
    }

    /// True when `lhs` and `rhs` hold the same bytes.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in equals(left, right) } }
    }

    /// True when `lhs` and `rhs` have the same UTF-8 bytes (for tokens and signatures as text).
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in equals(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) }
        }
    }
}
