/// The rules the signer applies to object keys.
///
/// S3 keys are up to 1024 bytes of UTF-8. The signer also refuses a key with a `.` or `..`
/// segment (`a/./b`, `../x`, `.`): HTTP clients remove such dot segments (RFC 3986 section 5.2.4)
/// before sending, so the path that arrives would not be the path that was signed.
enum ObjectKey {
    /// The longest key S3 accepts, in UTF-8 bytes.
    static let maximumLength = 1024

    /// Throws `invalidKey` unless `key` can be signed; an empty key passes only when `allowingEmpty`
    /// (bucket-level requests).
    static func validate(_ key: String, allowingEmpty: Bool) throws(SigV4Error) {
        let valid = key.utf8.withContiguousStorageIfAvailable { bytes in
            Self.isValid(bytes, allowingEmpty: allowingEmpty)
        }
        if let valid {
            guard valid else { throw .invalidKey(key) }
            return
        }
        guard Array(key.utf8).withUnsafeBufferPointer({ Self.isValid($0, allowingEmpty: allowingEmpty) }) else {
            throw .invalidKey(key)
        }
    }

    /// The length and dot-segment rules on the UTF-8 bytes of a key.
    private static func isValid(_ bytes: UnsafeBufferPointer<UInt8>, allowingEmpty: Bool) -> Bool {
        if bytes.isEmpty { return allowingEmpty }
        guard bytes.count <= maximumLength else { return false }
        let dot = UInt8(ascii: ".")
        let slash = UInt8(ascii: "/")
        var index = 0
        while index < bytes.count {
            // Here `index` starts a segment: is it "." or ".."?
            if bytes[index] == dot {
                let next = index + 1
                if next == bytes.count || bytes[next] == slash { return false }
                if bytes[next] == dot && (next + 1 == bytes.count || bytes[next + 1] == slash) { return false }
            }
            // Skip to the start of the next segment.
            while index < bytes.count && bytes[index] != slash { index += 1 }
            index += 1
        }
        return true
    }
}
