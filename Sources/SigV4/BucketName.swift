/// The rules the signer applies to bucket names.
///
/// Any bucket that S3, MinIO, Ceph RGW, R2 or Naver Cloud accepts passes: 3 to 255 bytes of
/// `A-Z a-z 0-9 . _ -` (255 and upper case for legacy us-east-1 buckets), starting and ending with a
/// letter or digit (so `.` and `..` can never be a path segment). Virtual-hosted addressing needs
/// more: a lower-case DNS name of 3 to 63 bytes that does not look like an IPv4 address.
enum BucketName {
    /// Throws `invalidBucket` unless `bucket` follows the general rules.
    static func validate(_ bucket: String) throws(SigV4Error) {
        let valid = bucket.utf8.withContiguousStorageIfAvailable { bytes in
            guard (3...255).contains(bytes.count), Endpoint.isAlphanumeric(bytes[0]),
                Endpoint.isAlphanumeric(bytes[bytes.count - 1])
            else { return false }
            return bytes.allSatisfy {
                Endpoint.isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: "-")
            }
        }
        guard valid ?? Self.validSlowly(bucket) else { throw .invalidBucket(bucket) }
    }

    /// The general rules on a copy (for strings that are not stored contiguously, e.g. bridged).
    private static func validSlowly(_ bucket: String) -> Bool {
        var copy = bucket
        copy.makeContiguousUTF8()
        return (try? validate(copy)) != nil
    }

    /// True when `bucket` can be the first labels of a host name: 3 to 63 bytes, lower-case
    /// letters, digits, `-` and (when `allowingDots`) `.` between labels that start and end with a
    /// letter or digit, and not an IPv4 address.
    static func isVirtualHostable(_ bucket: String, allowingDots: Bool) -> Bool {
        let bytes = Array(bucket.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if labels.count > 1 && !allowingDots { return false }
        let lowerDNSLabels = labels.allSatisfy { label in
            guard let first = label.first, let last = label.last else { return false }
            return isLowerAlphanumeric(first) && isLowerAlphanumeric(last)
                && label.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }
        }
        let looksLikeIPv4 =
            labels.count == 4
            && labels.allSatisfy { $0.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        return lowerDNSLabels && !looksLikeIPv4
    }

    /// A lower-case ASCII letter or a digit.
    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
