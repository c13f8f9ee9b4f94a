/// A response as a handler builds it. The server adds `Date`, `Content-Length`, `X-Request-Id` and,
/// when it closes, `Connection: close`.
public struct Response: Sendable {
    /// The status code.
    public var status: Int
    /// Extra headers, in order (never `Content-Length`, `Date` or `Connection`: the server writes those).
    public var headers: [(name: String, value: String)]
    /// The body bytes (omitted on the wire for HEAD, 204 and 304, but counted in Content-Length for HEAD).
    public var body: [UInt8]
    /// The user id of the caller this response served, for the access log (never sent; never a token
    /// or a key); nil when the request had no admitted caller.
    public var userId: String?

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response with `Content-Type: application/json`.
    public static func json(_ status: Int, _ body: [UInt8], extraHeaders: [(name: String, value: String)] = [])
        -> Response
    {
        Response(status: status, headers: [("Content-Type", "application/json")] + extraHeaders, body: body)
    }
}
