/// An upload type as the layers describe it so far: any field may still be missing.
struct UploadTypeDraft {
    /// The type name (the key in `types`).
    var name: String
    /// `extensions`, if given.
    var extensions: [String]?
    /// `contentTypes`, if given.
    var contentTypes: [String]?
    /// `keyTemplate`, if given.
    var keyTemplate: String?
    /// `permanentKeyTemplate`, if given.
    var permanentKeyTemplate: String?
    /// `maxBytes`, if given.
    var maxBytes: Int64?
    /// `expiresSeconds`, if given.
    var expiresSeconds: Int?
    /// `chatroomId` (or the older `requiresChatroomId`: true is `required`, false `server-made`), if given.
    var chatroomId: UploadTypeConfig.ChatroomIdRule?
    /// `contentCheck`, if given.
    var contentCheck: Bool?
    /// `verifyChecksum`, if given.
    var verifyChecksum: UploadTypeConfig.VerifyChecksum?
    /// `computeSha256`, if given.
    var computeSha256: Bool?
    /// `dedup`, if given.
    var dedup: Bool?
    /// `scan`, if given.
    var scan: UploadTypeConfig.ScanMode?

    /// The field names a type object may hold, in file order.
    static let fieldNames = [
        "extensions", "contentTypes", "keyTemplate", "permanentKeyTemplate", "maxBytes", "expiresSeconds",
        "chatroomId", "contentCheck", "verifyChecksum", "computeSha256", "dedup", "scan",
        "requiresChatroomId",
    ]

    /// The finished type, or the problems of the required fields that are missing.
    ///
    /// Optional fields default to: no extensions, no promotion, `presign.expiresSeconds`, a server-made
    /// chat room id, the content check on when every content type is one it recognises, a declared
    /// checksum proven by reading the object, no SHA-256 computed, no deduplication, no scan.
    func resolve(defaultExpiresSeconds: Int) -> Result<UploadTypeConfig, ConfigError> {
        var missing: [ConfigProblem] = []
        func require(_ field: String, _ present: Bool) {
            if !present { missing.append(ConfigProblem(keyPath: "types.\(name).\(field)", message: "is required")) }
        }
        require("contentTypes", contentTypes != nil)
        require("keyTemplate", keyTemplate != nil)
        require("maxBytes", maxBytes != nil)
        guard missing.isEmpty, let contentTypes, let keyTemplate, let maxBytes else {
            return .failure(ConfigError(problems: missing))
        }
        return .success(
            UploadTypeConfig(
                name: name, extensions: extensions ?? [], contentTypes: contentTypes, keyTemplate: keyTemplate,
                permanentKeyTemplate: permanentKeyTemplate.flatMap { $0.isEmpty ? nil : $0 }, maxBytes: maxBytes,
                expiresSeconds: expiresSeconds ?? defaultExpiresSeconds,
                chatroomId: chatroomId ?? .serverMade, contentCheck: contentCheck,
                verifyChecksum: verifyChecksum ?? .read, computeSha256: computeSha256 ?? false, dedup: dedup ?? false,
                scan: scan ?? .off))
    }
}
