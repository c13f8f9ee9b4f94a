/// A request for the blocking HTTP/1.1 client.
///
/// Header names and values must not hold CR or LF (every request the S3 client builds passes
/// SigV4's header checks first); the client adds `Host` when missing and `Content-Length`
/// when there is a body or the method is PUT or POST.
public struct HTTPRequest: Sendable {
    /// The method, e.g. `HEAD`.
    public var method: String
    /// The request target, `/path[?query]`, already percent-encoded.
    public var target: String
    /// The header fields, in order.
    public var headers: [(name: String, value: String)]
    /// The body, sent with `Content-Length`.
    public var body: [UInt8]

    /// A request from its parts.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// True when the response to this request has no body whatever its framing headers say.
    var expectsNoBody: Bool { method == "HEAD" }
}
