/// The `uppy` section: multipart uploads and presigned POST in the route shapes of Uppy Companion's
/// S3 endpoints (`@uppy/aws-s3` with `endpoint` pointing at presignd), off unless `enabled`.
public struct UppyConfig: Sendable, Equatable {
    /// How `GET {prefix}/params` lets the browser upload.
    public enum ParamsMethod: String, Sendable, Equatable, CaseIterable {
        /// A presigned PUT (`{method:"PUT", url, headers}`): its 200 carries the `ETag` header on
        /// every store (the default, because Ceph RGW 16.2 sends a POST's ETag only in the XML body).
        case put
        /// A presigned POST form whose policy pins the key, the content type and the size.
        case post
    }

    /// Whether the routes are served.
    public var enabled: Bool
    /// The path every route is under (`/s3`: Companion's).
    public var prefix: String
    /// The upload type of a request whose `metadata` names none (`metadata.uploadType`).
    public var defaultType: String
    /// Lifetime of part URLs and of `params` URLs, in seconds.
    public var urlExpiresSeconds: Int
    /// The method `params` answers with.
    public var paramsMethod: ParamsMethod
    /// Multipart uploads never completed are aborted by the janitor this long after they began.
    public var abortAfterSeconds: Int
    /// At most this many uploads aborted per janitor run.
    public var janitorMaxAborts: Int
    /// The storage timeout of CompleteMultipartUpload (joining many parts can take the store long).
    public var completeTimeoutMs: Int
    /// The body limit of `complete` (10,000 parts fit in about 1 MiB).
    public var completeMaxBodyBytes: Int

    /// The settings; every argument defaults to the documented default.
    public init(
        enabled: Bool = false, prefix: String = "/s3", defaultType: String = "IMAGE", urlExpiresSeconds: Int = 900,
        paramsMethod: ParamsMethod = .put, abortAfterSeconds: Int = 86_400, janitorMaxAborts: Int = 1000,
        completeTimeoutMs: Int = 120_000, completeMaxBodyBytes: Int = 1_048_576
    ) {
        self.enabled = enabled
        self.prefix = prefix
        self.defaultType = defaultType
        self.urlExpiresSeconds = urlExpiresSeconds
        self.paramsMethod = paramsMethod
        self.abortAfterSeconds = abortAfterSeconds
        self.janitorMaxAborts = janitorMaxAborts
        self.completeTimeoutMs = completeTimeoutMs
        self.completeMaxBodyBytes = completeMaxBodyBytes
    }
}

/// The `cors` section: which browser origins may call the API (none by default).
public struct CORSConfig: Sendable, Equatable {
    /// Origins allowed exactly (`https://app.example.com`); empty: no CORS headers, no preflights.
    public var allowedOrigins: [String]
    /// Whether `Access-Control-Allow-Credentials: true` is sent (cookies, client certificates).
    public var allowCredentials: Bool
    /// Request headers a preflight may ask for, lower case.
    public var allowedHeaders: [String]
    /// How long a browser may cache a preflight, in seconds.
    public var maxAgeSeconds: Int

    /// The headers `@uppy/aws-s3` and its companion client send.
    public static let uppyHeaders = [
        "accept", "authorization", "content-type", "uppy-auth-token", "uppy-versions", "uppy-credentials-params",
        "x-requested-with",
    ]

    /// The settings; every argument defaults to the documented default.
    public init(
        allowedOrigins: [String] = [], allowCredentials: Bool = false, allowedHeaders: [String] = uppyHeaders,
        maxAgeSeconds: Int = 600
    ) {
        self.allowedOrigins = allowedOrigins
        self.allowCredentials = allowCredentials
        self.allowedHeaders = allowedHeaders
        self.maxAgeSeconds = maxAgeSeconds
    }
}
