/// A parsed and validated request head: request line, field lines and the framing derived from them.
public struct RequestHead: Sendable, Equatable {
    /// The method, or nil for a syntactically valid token we do not know (the server answers 501).
    public var method: HTTPMethod?
    /// The method token as received.
    public var methodName: String
    /// The raw request-target as received.
    public var target: String
    /// The path: the origin-form target up to `?`; the path of an absolute-form target ("/" when
    /// empty); "*" for `OPTIONS *`; "" for CONNECT's authority-form.
    public var path: String
    /// The query after the first `?`, "" when none.
    public var query: String
    /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var versionMinor: Int
    /// The field lines in received order.
    public var headers: HTTPHeaders
    /// The single Host value (nil only for an HTTP/1.0 request without Host).
    public var host: String?
    /// The validated Content-Length, nil when absent.
    public var contentLength: Int?
    /// Whether the body is chunked (`Transfer-Encoding: chunked`).
    public var isChunked: Bool
    /// Whether the connection stays open after the response (version default, then Connection tokens).
    public var keepAlive: Bool
    /// Whether an HTTP/1.1 client sent `Expect: 100-continue`.
    public var expectsContinue: Bool

    /// Creates a head from its parts (the parser fills every field; useful for tests).
    public init(
        method: HTTPMethod?, methodName: String, target: String, path: String, query: String,
        versionMinor: Int, headers: HTTPHeaders, host: String?, contentLength: Int?, isChunked: Bool,
        keepAlive: Bool, expectsContinue: Bool
    ) {
        self.method = method
        self.methodName = methodName
        self.target = target
        self.path = path
        self.query = query
        self.versionMinor = versionMinor
        self.headers = headers
        self.host = host
        self.contentLength = contentLength
        self.isChunked = isChunked
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }
}
