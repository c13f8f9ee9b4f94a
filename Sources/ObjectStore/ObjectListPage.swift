/// One page of ListObjectsV2: objects under a prefix, in key order.
public struct ObjectListPage: Sendable, Equatable {
    /// One object of the listing.
    public struct Object: Sendable, Equatable {
        /// The object's key.
        public var key: String
        /// Its size in bytes.
        public var size: Int64
        /// Its entity tag without quotes (`hex(md5)` for one PUT, `hex(md5(md5s))-N` for N parts).
        public var etag: String
        /// When it was last written, in epoch seconds (`LastModified`, fractions dropped).
        public var lastModified: Int64

        /// An object from its fields.
        public init(key: String, size: Int64, etag: String, lastModified: Int64) {
            self.key = key
            self.size = size
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// The objects of this page, in key order.
    public var objects: [Object]
    /// The continuation token of the next page; nil when this page is the last.
    public var nextContinuationToken: String?

    /// A page from its fields.
    public init(objects: [Object], nextContinuationToken: String?) {
        self.objects = objects
        self.nextContinuationToken = nextContinuationToken
    }

    /// True when another page follows.
    public var isTruncated: Bool { nextContinuationToken != nil }
}
