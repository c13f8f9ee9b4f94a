/// A complete response from the blocking HTTP/1.1 client.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// The header fields, in order, names as received.
    public var headers: [(name: String, value: String)]
    /// The body, de-chunked.
    public var body: [UInt8]

    /// A response from its parts.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
