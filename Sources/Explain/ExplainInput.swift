import SigV4

/// What a client sent with a presigned URL that storage refused, as far as the caller knows it.
public struct ExplainInput: Sendable {
    /// The URL exactly as the client requested it (after whatever the client did to it).
    public var url: String
    /// The method the client sent; nil when unknown (`PUT` is assumed, and other methods are tried).
    public var method: String?
    /// The headers the client sent; nil when unknown (signed header values are then looked up among
    /// the server's candidates, and missing ones are not reported).
    public var headers: [(name: String, value: String)]?
    /// What storage answered, from its error XML; nil when not given.
    public var storage: StorageErrorReport?

    /// An input from its parts.
    public init(
        url: String, method: String? = nil, headers: [(name: String, value: String)]? = nil,
        storage: StorageErrorReport? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.storage = storage
    }
}

/// The parts of a storage error answer (`<Error>…</Error>`) the explainer reads. AWS S3 sends
/// `AWSAccessKeyId`, `StringToSign`, `SignatureProvided` and `CanonicalRequest` (and their hex dumps,
/// `StringToSignBytes`, `CanonicalRequestBytes`) with `SignatureDoesNotMatch`; Ceph RGW sends only
/// the code (and an empty `Message`).
public struct StorageErrorReport: Sendable, Equatable {
    /// `<Code>`, e.g. `SignatureDoesNotMatch`, `AccessDenied`, `InvalidArgument`.
    public var code: String?
    /// `<Message>`.
    public var message: String?
    /// `<CanonicalRequest>`: what storage hashed (no secret in it).
    public var canonicalRequest: String?
    /// `<StringToSign>`: what storage signed (no secret in it).
    public var stringToSign: String?
    /// `<AWSAccessKeyId>`: the access key storage read from the request.
    public var accessKeyId: String?
    /// `<SignatureProvided>`: the signature storage read from the request (AWS S3 sends it).
    public var signatureProvided: String?
    /// Storage's clock in epoch seconds (its `Date` header or `<ServerTime>`), when known.
    public var storageTime: Int64?

    /// A report from its parts.
    public init(
        code: String? = nil, message: String? = nil, canonicalRequest: String? = nil, stringToSign: String? = nil,
        accessKeyId: String? = nil, storageTime: Int64? = nil, signatureProvided: String? = nil
    ) {
        self.signatureProvided = signatureProvided
        self.code = code
        self.message = message
        self.canonicalRequest = canonicalRequest
        self.stringToSign = stringToSign
        self.accessKeyId = accessKeyId
        self.storageTime = storageTime
    }
}
