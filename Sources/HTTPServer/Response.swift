/// A response as a handler builds it. The server adds `Date`, `Content-Length`, `X-Request-Id` and,
/// when it closes, `Connection: close`.
public struct Response: Sendable {
    /// The status code.
    public var status: Int
    /// Extra headers, in order (never `Content-Length`, `Date` or `Connection`: the server writes those).
    public var headers: [(name: String, value: String)]
    /// The body bytes (omitted on the wire for HEAD, 204 and 304, but counted in Content-Length for HEAD).
    public var body: [UInt8]

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

    /// The stable JSON error body `{"code": code, "message": message}` with `status`.
    public static func error(_ status: Int, code: String, message: String) -> Response {
        var body: [UInt8] = []
        body.reserveCapacity(48 + message.utf8.count)
        body.append(contentsOf: #"{"code":""#.utf8)
        JSONEscape.append(code, to: &body)
        body.append(contentsOf: #"","message":""#.utf8)
        JSONEscape.append(message, to: &body)
        body.append(contentsOf: #""}"#.utf8)
        return .json(status, body)
    }
}

/// Minimal JSON string escaping for the server's own bodies (errors, logs).
enum JSONEscape {
    /// Appends `s` escaped for a JSON string (without the quotes).
    static func append(_ s: String, to out: inout [UInt8]) {
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
    }
}
