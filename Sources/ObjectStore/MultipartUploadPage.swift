/// One page of ListMultipartUploads: uploads begun and neither completed nor aborted.
public struct MultipartUploadPage: Sendable, Equatable {
    /// One upload in progress.
    public struct Upload: Sendable, Equatable {
        /// The object key the upload will create.
        public var key: String
        /// The upload's ID.
        public var uploadId: String
        /// When it was created, in epoch seconds (`Initiated`, fractions dropped).
        public var initiated: Int64

        /// An upload from its fields.
        public init(key: String, uploadId: String, initiated: Int64) {
            self.key = key
            self.uploadId = uploadId
            self.initiated = initiated
        }
    }

    /// The uploads of this page, in key then upload-ID order.
    public var uploads: [Upload]
    /// The `keyMarker` of the next page; nil when this page is the last.
    public var nextKeyMarker: String?
    /// The `uploadIdMarker` of the next page; nil when this page is the last (or the store gave none).
    public var nextUploadIdMarker: String?

    /// A page from its fields.
    public init(uploads: [Upload], nextKeyMarker: String?, nextUploadIdMarker: String?) {
        self.uploads = uploads
        self.nextKeyMarker = nextKeyMarker
        self.nextUploadIdMarker = nextUploadIdMarker
    }

    /// True when another page follows.
    public var isTruncated: Bool { nextKeyMarker != nil }
}
