import Config

/// S3's rules of multipart parts, and the check of a completion against what storage holds. Pure.
public enum PartRules {
    /// S3's part numbers.
    public static let partNumbers: ClosedRange<Int> = 1...10_000
    /// The smallest part but the last (S3's minimum, 5 MiB).
    public static let minPartBytes: Int64 = 5 * 1024 * 1024
    /// The largest part (S3's maximum, 5 GiB).
    public static let maxPartBytes: Int64 = 5 * 1024 * 1024 * 1024

    /// One part a completion names.
    public struct Part: Sendable, Equatable {
        /// Its number.
        public let number: Int
        /// The ETag the client got for it.
        public let etag: String

        /// A part.
        public init(number: Int, etag: String) {
            self.number = number
            self.etag = etag
        }
    }

    /// An ETag without its surrounding quotes (browsers and stores differ in sending them).
    public static func bareETag(_ etag: String) -> Substring {
        var s = Substring(etag)
        if s.hasPrefix("W/") { s = s.dropFirst(2) }
        if s.hasPrefix("\"") { s = s.dropFirst() }
        if s.hasSuffix("\"") { s = s.dropLast() }
        return s
    }

    /// What is wrong with completing `given` parts (sorted by number) from the store's `listed` ones
    /// under `maxBytes` (upload type `type`'s, or the declared size) and, when the upload was created with
    /// a `declaredSize`, adding up to exactly it; else the parts to send (each with the store's ETag) and
    /// their total size.
    public static func checkCompletion(
        given: [Part], listed: [Int: (etag: String, size: Int64)], maxBytes: Int64, type: String,
        declaredSize: Int64? = nil
    ) throws(UploadError) -> (parts: [(number: Int, etag: String)], total: Int64) {
        var total: Int64 = 0
        var out: [(number: Int, etag: String)] = []
        out.reserveCapacity(given.count)
        for (i, part) in given.enumerated() {
            guard let stored = listed[part.number], bareETag(stored.etag) == bareETag(part.etag) else {
                throw .partNotUploaded(partNumber: part.number)
            }
            if stored.size > maxPartBytes { throw .partTooLarge(partNumber: part.number) }
            if i < given.count - 1 && stored.size < minPartBytes { throw .partTooSmall(partNumber: part.number) }
            total += stored.size
            out.append((part.number, stored.etag))
        }
        if let declaredSize, total != declaredSize { throw .partsSizeMismatch(size: total, declared: declaredSize) }
        if total > maxBytes { throw .uploadTooLarge(size: total, limit: maxBytes, type: type) }
        return (out, total)
    }

    /// The `Content-MD5` a part URL signs when the client gives the part's MD5 (storage then refuses
    /// other bytes with `BadDigest`, before they are part of the upload); nil when it gave none or
    /// storage does not check it. The phones' native multipart API signs its parts through this too.
    public static func partDigestHeader(md5: String?, storeChecksums: StoreChecksums) -> (name: String, value: String)?
    {
        guard let md5, storeChecksums.contentMD5 else { return nil }
        return ("content-md5", md5)
    }
}
