import HTTP1

/// A complete request as a handler sees it: the parsed head, the whole body, and where it came from.
public struct Request: Sendable {
    /// The parsed request head.
    public let head: RequestHead
    /// The request body (de-chunked), empty when there was none.
    public let body: [UInt8]
    /// Values of the route template's `{name}` segments, percent-decoded.
    public let pathParameters: [(name: String, value: String)]
    /// The request id: the client's well-formed `X-Request-Id`, or one the server generated.
    public let requestId: String
    /// The peer address, "ip:port".
    public let peer: String

    /// Creates a request (the server does this; tests may too).
    public init(
        head: RequestHead, body: [UInt8], pathParameters: [(name: String, value: String)], requestId: String,
        peer: String
    ) {
        self.head = head
        self.body = body
        self.pathParameters = pathParameters
        self.requestId = requestId
        self.peer = peer
    }

    /// The value of the path parameter `name`.
    public func parameter(_ name: String) -> String? {
        for p in pathParameters where p.name == name { return p.value }
        return nil
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { head.headers.first(name) }

    /// The query string split into percent-decoded pairs, in order. `nil` when the query is malformed
    /// (a bad percent escape or invalid UTF-8 after decoding).
    public func queryItems() -> [(name: String, value: String)]? {
        QueryString.parse(head.query)
    }

    /// Calls `body` with each percent-decoded query pair, in order (`QueryString.forEach`); false when
    /// the query is malformed.
    public func forEachQueryItem(_ body: (_ name: String, _ value: String) -> Void) -> Bool {
        QueryString.forEach(head.query, body)
    }
}

/// Parsing of `application/x-www-form-urlencoded`-style query strings.
public enum QueryString {
    /// Splits `query` on `&` and `=`, percent-decoding names and values (`+` is a space).
    public static func parse(_ query: String) -> [(name: String, value: String)]? {
        var items: [(name: String, value: String)] = []
        if query.isEmpty { return items }
        items.reserveCapacity(4)
        guard forEach(query, { items.append(($0, $1)) }) else { return nil }
        return items
    }

    /// Calls `body` with each percent-decoded pair of `query`, in order, without collecting them;
    /// false when the query is malformed (`body` has then seen the pairs before the bad one).
    public static func forEach(_ query: String, _ body: (_ name: String, _ value: String) -> Void) -> Bool {
        if query.isEmpty { return true }
        var q = query
        return q.withUTF8 { buf -> Bool in
            var i = 0
            let n = buf.count
            while i < n {
                var end = i
                var eq = -1
                while end < n && buf[end] != UInt8(ascii: "&") {
                    if eq < 0 && buf[end] == UInt8(ascii: "=") { eq = end }
                    end += 1
                }
                if end > i {
                    let nameEnd = eq >= 0 ? eq : end
                    let valueStart = eq >= 0 ? eq + 1 : end
                    guard let name = decode(UnsafeBufferPointer(rebasing: buf[i..<nameEnd])),
                        let value = decode(UnsafeBufferPointer(rebasing: buf[valueStart..<end]))
                    else { return false }
                    body(name, value)
                }
                i = end + 1
            }
            return true
        }
    }

    /// Decodes one name or value: plain ASCII is copied as is; otherwise percent-decoded and validated.
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var plain = true
        for b in bytes where b == UInt8(ascii: "%") || b == UInt8(ascii: "+") || b >= 0x80 {
            plain = false
            break
        }
        if plain { return String(decoding: bytes, as: UTF8.self) }
        return percentDecode(Array(bytes), plusIsSpace: true)
    }

    /// Percent-decodes bytes (`+` as space); nil on a malformed escape or invalid UTF-8.
    public static func percentDecode(_ bytes: Substring.UTF8View.SubSequence) -> String? {
        percentDecode(Array(bytes), plusIsSpace: true)
    }

    /// Percent-decodes `bytes`; nil on a malformed escape or invalid UTF-8.
    public static func percentDecode(_ bytes: [UInt8], plusIsSpace: Bool) -> String? {
        if !bytes.contains(UInt8(ascii: "%")) && !(plusIsSpace && bytes.contains(UInt8(ascii: "+"))) {
            return String(validating: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else {
                    return nil
                }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
