/// What a signed HEAD of the bucket says about the configuration: the bucket is there and the
/// credentials may use it, or why not (`S3Client.checkBucket()`).
///
/// A start-up check and `explain` read it to name the cause of URLs that cannot work: a bucket that
/// does not exist, credentials storage refuses, or a store that cannot be reached.
public enum BucketCheck: Sendable, Equatable, CustomStringConvertible {
    /// The bucket exists and the credentials may use it (HTTP 200).
    case ok
    /// Storage says there is no such bucket (`NoSuchBucket`, or a 404 without a code).
    case noSuchBucket
    /// Storage refused the credentials: `InvalidAccessKeyId` (it does not know the access key),
    /// `SignatureDoesNotMatch` (the secret is not the access key's) or `AccessDenied` (the key may not
    /// use the bucket). `code` is one of `credentialCodes`.
    case credentialsRefused(status: Int, code: String)
    /// Any other refusal (a skewed clock, a redirect to another region, a 5xx after the retries).
    case refused(status: Int, code: String?)
    /// No usable answer after the retries: no connection, a time-out, TLS, a malformed answer.
    case unreachable(ObjectStoreError)

    /// The codes that mean the credentials themselves were refused.
    public static let credentialCodes: Set<String> = ["InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied"]

    /// The outcome of a HEAD answered with `status`, `code` being S3's error code learnt for it (nil
    /// when the store named none).
    public init(status: Int, code: String?) {
        if status == 200 {
            self = .ok
        } else if code == "NoSuchBucket" || (status == 404 && code == nil) {
            self = .noSuchBucket
        } else if let code, Self.credentialCodes.contains(code) {
            self = .credentialsRefused(status: status, code: code)
        } else {
            self = .refused(status: status, code: code)
        }
    }

    /// Whether the bucket is usable.
    public var isOK: Bool { self == .ok }

    /// A short stable name of the outcome for logs and metrics: `ok`, `no_such_bucket`,
    /// `credentials_refused`, `refused`, `unreachable`.
    public var name: String {
        switch self {
        case .ok: return "ok"
        case .noSuchBucket: return "no_such_bucket"
        case .credentialsRefused: return "credentials_refused"
        case .refused: return "refused"
        case .unreachable: return "unreachable"
        }
    }

    /// One line that names the cause and what to check, never a key or a signature
    /// (`SignatureDoesNotMatch (HTTP 403): s3.secretAccessKey is not the secret of s3.accessKeyId`).
    public var description: String {
        switch self {
        case .ok:
            return "ok"
        case .noSuchBucket:
            return "NoSuchBucket (HTTP 404): the bucket s3.bucket does not exist"
        case .credentialsRefused(let status, let code):
            let hint: String
            switch code {
            case "InvalidAccessKeyId": hint = "storage does not know s3.accessKeyId"
            case "SignatureDoesNotMatch": hint = "s3.secretAccessKey is not the secret of s3.accessKeyId"
            default: hint = "the credentials may not use s3.bucket"
            }
            return "\(code) (HTTP \(status)): \(hint)"
        case .refused(let status, let code):
            let text = ObjectStoreError.status(status, code: code).description
            guard let code, let hint = Self.refusalHints[code] else { return text }
            return text + ": " + hint
        case .unreachable(let error):
            return error.description
        }
    }

    /// What to check for the other refusals a misconfiguration gives (the codes AWS S3 documents for
    /// HeadBucket and ListObjects, "Error responses", S3 API reference).
    static let refusalHints: [String: String] = [
        "RequestTimeTooSkewed": "this server's clock is too far from storage's",
        "InvalidToken": "s3.sessionToken is not valid",
        "ExpiredToken": "s3.sessionToken has expired",
        "PermanentRedirect": "s3.bucket is in another region or behind another endpoint (s3.region, s3.endpoint)",
        "AuthorizationHeaderMalformed": "s3.region is not the bucket's region",
    ]
}
