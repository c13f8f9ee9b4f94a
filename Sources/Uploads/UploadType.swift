import Config

/// One upload type with its parsed templates (a class: requests share it by reference, without copying
/// its strings and arrays).
public final class UploadType: Sendable {
    /// Its configuration.
    public let config: UploadTypeConfig
    /// The template of the key a URL is issued for.
    public let key: KeyTemplate
    /// The template of the key a confirmed upload is promoted to (nil: no promotion).
    public let permanentKey: KeyTemplate?
    /// Whether a request without `chatroomId` gets a server-made UUID in that segment (the rule is
    /// `server-made` and a template uses `{chatroomId}`).
    public let makesChatroomId: Bool
    /// Whether every upload key holds the UUID drawn for it (the key template uses `{uuid}`, or
    /// `{imageKey}` where the server sets the image key to that UUID): such keys are fresh
    /// (`UploadIntent.freshKey`). A template without either (one key per user, say) repeats keys.
    public let makesFreshKeys: Bool

    /// A type from its configuration; nil names the template that does not parse.
    init(config: UploadTypeConfig) throws(UploadError) {
        guard let key = KeyTemplate(config.keyTemplate) else {
            throw .configuration("types.\(config.name).keyTemplate")
        }
        var permanent: KeyTemplate?
        if let text = config.permanentKeyTemplate {
            guard let parsed = KeyTemplate(text) else {
                throw .configuration("types.\(config.name).permanentKeyTemplate")
            }
            permanent = parsed
        }
        self.config = config
        self.key = key
        self.permanentKey = permanent
        self.makesChatroomId =
            config.chatroomId == .serverMade && (key.uses(.chatroomId) || permanent?.uses(.chatroomId) == true)
        self.makesFreshKeys = key.uses(.uuid) || key.uses(.imageKey)
    }

    /// The type's name.
    public var name: String { config.name }

    /// The `{chatroomId}` of one request: the one it sent (checked already), else a new UUID when the
    /// type makes one, else none.
    func chatroomId(sent: String?, env: UploadEnvironment) -> String? {
        if let sent, !sent.isEmpty { return sent }
        return makesChatroomId ? env.newUUID() : nil
    }

    /// The upload key and the permanent key of `values`; `.keyUnrenderable` when the upload key cannot be
    /// filled.
    func keys(_ values: KeyTemplate.Values) throws(UploadError) -> (key: String, permanent: String?) {
        guard let rendered = key.render(values) else { throw .rejected([.keyUnrenderable(type: config.name)]) }
        return (rendered, permanentKey?.render(values))
    }
}
