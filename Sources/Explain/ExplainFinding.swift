import SigV4

/// One difference between what the server signs for a URL and what the client sent.
public struct ExplainFinding: Sendable, Equatable {
    /// How much the difference matters.
    public enum Severity: String, Sendable, Equatable {
        /// It breaks the request: storage refuses it (confirmed by recomputing the signature, or a
        /// rule storage always applies, such as expiry).
        case error
        /// Probably a cause, not confirmed (e.g. no repair made the signature match).
        case warning
        /// Harmless to storage, worth knowing (a reordered query, a `/` left unencoded).
        case info
    }

    /// The stable code (`docs/sigv4.md`, "Explain mode").
    public var code: ExplainCode
    /// The part of the request: a query parameter name, `path`, `host`, `method`, `header:<name>`,
    /// `canonicalRequest.<part>`.
    public var field: String
    /// What the server signs (never a key, a signature or a session token).
    public var expected: String?
    /// What the client sent.
    public var got: String?
    /// What to do about it.
    public var hint: String
    /// How much it matters.
    public var severity: Severity

    /// A finding from its parts.
    public init(
        _ code: ExplainCode, field: String, expected: String?, got: String?, hint: String, severity: Severity
    ) {
        self.code = code
        self.field = field
        self.expected = expected
        self.got = got
        self.hint = hint
        self.severity = severity
    }
}

/// The kinds of difference the explainer names.
public enum ExplainCode: String, Sendable, Equatable, CaseIterable {
    /// The URL does not parse as `http(s)://host/path?query`.
    case malformedURL = "MALFORMED_URL"
    /// A value (or the path) was percent-encoded a second time: `%2F` became `%252F`.
    case doubleEncoded = "DOUBLE_ENCODED"
    /// A character the server encodes arrived unencoded (`%2F` became `/`); storage decodes before
    /// signing, so this alone is harmless.
    case notEncoded = "NOT_ENCODED"
    /// A parameter the server signs is not in the URL.
    case parameterMissing = "PARAMETER_MISSING"
    /// A parameter the server did not issue was added (every parameter but the signature is signed).
    case parameterAdded = "PARAMETER_ADDED"
    /// A parameter appears more than once.
    case parameterDuplicated = "PARAMETER_DUPLICATED"
    /// The parameters are not in the order the server writes them (harmless to storage, which sorts
    /// them; client P's contract needs the order).
    case parameterReordered = "PARAMETER_REORDERED"
    /// A parameter's value is malformed (algorithm, date, expiry, signed header list, signature).
    case parameterInvalid = "PARAMETER_INVALID"
    /// A header named in `X-Amz-SignedHeaders` was not sent.
    case signedHeaderMissing = "SIGNED_HEADER_MISSING"
    /// A signed header was sent with another value than the one signed (e.g. `Content-Type`).
    case signedHeaderChanged = "SIGNED_HEADER_CHANGED"
    /// The URL signs headers besides `host` and the client's headers were not given: the request must
    /// carry them, and they (and the signature) could not be checked.
    case signedHeadersUnchecked = "SIGNED_HEADERS_UNCHECKED"
    /// `X-Amz-Date` + `X-Amz-Expires` is past.
    case expired = "EXPIRED"
    /// `X-Amz-Date` is in the future: the issuing clock runs ahead (or this one behind).
    case clockSkew = "CLOCK_SKEW"
    /// Storage's clock differs from the server's.
    case storageClock = "STORAGE_CLOCK"
    /// The URL's host (or the `Host` header) is not the endpoint the server signs for.
    case wrongHost = "WRONG_HOST"
    /// Path-style turned into virtual-hosted, or the other way round.
    case addressingStyle = "ADDRESSING_STYLE"
    /// The bucket in the URL is not the server's.
    case wrongBucket = "WRONG_BUCKET"
    /// The access key ID in `X-Amz-Credential` is not the server's.
    case credentialKeyId = "CREDENTIAL_KEY_ID"
    /// The region in `X-Amz-Credential` is not the server's.
    case credentialRegion = "CREDENTIAL_REGION"
    /// The day in `X-Amz-Credential` is not the day of `X-Amz-Date`.
    case credentialDate = "CREDENTIAL_DATE"
    /// The service in `X-Amz-Credential` is not `s3`, or the scope does not end in `aws4_request`.
    case credentialScope = "CREDENTIAL_SCOPE"
    /// The request used another method than the URL was signed for.
    case method = "METHOD"
    /// The server's signature for the URL is not the URL's, and no repair made them equal.
    case signatureMismatch = "SIGNATURE_MISMATCH"
    /// A part of storage's `<CanonicalRequest>` differs from the one the server signs.
    case storageCanonicalRequest = "STORAGE_CANONICAL_REQUEST"
    /// A line of storage's `<StringToSign>` differs from the one the server signs.
    case storageStringToSign = "STORAGE_STRING_TO_SIGN"
    /// Storage refuses the server's own credentials: the secret the server holds is not the one storage
    /// has for that access key (or storage does not know the key).
    case secretKeyMismatch = "SECRET_KEY_MISMATCH"
    /// The URL is what the server signs and storage accepts the server's credentials: the request
    /// storage refused is not this URL as given (a proxy changed it, or the error is another request's).
    case credentialsAccepted = "CREDENTIALS_ACCEPTED"
    /// The URL is what the server signs, and the server's credentials could not be checked against storage.
    case credentialsUnchecked = "CREDENTIALS_UNCHECKED"
}
