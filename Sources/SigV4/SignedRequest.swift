/// A request signed with an `Authorization` header, ready for the object-store client to send.
///
/// Printing it shows the method and path only: header values (the signature, a token) stay out of logs.
public struct SignedRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method, e.g. `HEAD`.
    public var method: String
    /// The full URL, `scheme://authority/path[?query]`.
    public var url: String
    /// The request target for the request line: `/path[?query]`.
    public var target: String
    /// Every header to send: `Host`, `X-Amz-Date`, `X-Amz-Content-SHA256`, `X-Amz-Security-Token`
    /// (temporary credentials), the extra headers given, then `Authorization`.
    public var headers: [(name: String, value: String)]

    /// A signed request from its parts.
    public init(method: String, url: String, target: String, headers: [(name: String, value: String)]) {
        self.method = method
        self.url = url
        self.target = target
        self.headers = headers
    }

    /// `METHOD /path` (no query, no headers).
    public var description: String {
        let path = target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        return "\(method) \(path)"
    }

    /// Same as `description`.
    public var debugDescription: String { "SignedRequest(\(description))" }

    /// A mirror that shows only the redacted description.
    public var customMirror: Mirror { Mirror(self, children: ["request": description], displayStyle: .struct) }
}
