/// A presigned browser form upload: where to POST and the form fields to send before the file.
///
/// The fields are in the order presignd emits them: `key`, `Content-Type`, `success_action_status`,
/// `x-amz-algorithm`, `x-amz-credential`, `x-amz-date`, (`x-amz-security-token`,) `policy`,
/// `x-amz-signature`. S3 reads form field names case-insensitively and ignores their order, but the
/// `file` field must come after all of them.
public struct PresignedPost: Sendable, CustomStringConvertible, CustomReflectable {
    /// The form's action: `scheme://host/bucket` (path-style) or `scheme://bucket.host/` (virtual-hosted).
    public var url: String
    /// The form fields, in order.
    public var fields: [(name: String, value: String)]
    /// The policy document (JSON) that `policy` holds in base64.
    public var policyDocument: String
    /// When the policy expires, in epoch seconds.
    public var expiresAt: Int64

    /// A presigned form from its parts.
    public init(url: String, fields: [(name: String, value: String)], policyDocument: String, expiresAt: Int64) {
        self.url = url
        self.fields = fields
        self.policyDocument = policyDocument
        self.expiresAt = expiresAt
    }

    /// The value of the field `name` (case-insensitive).
    public func field(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The URL and the field names only: the signature and a session token never print.
    public var description: String { "POST \(url) fields: \(fields.map(\.name).joined(separator: ","))" }

    /// A mirror showing only `description`.
    public var customMirror: Mirror { Mirror(self, children: ["form": description], displayStyle: .struct) }
}
