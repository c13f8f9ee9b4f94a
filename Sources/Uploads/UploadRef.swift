/// A multipart upload as a request names it: storage's upload ID and the object key.
public struct UploadRef: Sendable, Equatable {
    /// Storage's upload ID.
    public let uploadId: String
    /// The object key.
    public let key: String

    /// A reference to the upload `uploadId` of `key`.
    public init(uploadId: String, key: String) {
        self.uploadId = uploadId
        self.key = key
    }

    /// The key the upload's intent is recorded under: `key#uploadId`, which no other image key can
    /// equal (`#` is not in keys).
    public var pairKey: String { UploadRef.pairKey(key: key, uploadId: uploadId) }

    /// The pair key of the upload `uploadId` of `key`.
    public static func pairKey(key: String, uploadId: String) -> String { key + "#" + uploadId }
}
