/// The status line and header fields of a response, as `ResponseHeadParser` read them.
struct ResponseHead: Sendable {
    /// The minor HTTP version: 1 for HTTP/1.1, 0 for HTTP/1.0.
    var minorVersion: Int
    /// The three-digit status code.
    var status: Int
    /// The header fields in order, values with surrounding whitespace removed.
    var headers: [(name: String, value: String)]

    /// The values of every field named `name` (case-insensitive), in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name }.map(\.value)
    }

    /// True when the server keeps the connection open after this response (RFC 9112 section 9.3).
    var keepsAlive: Bool {
        let options = values("connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingASCIISpaces().lowercased() }
        if options.contains("close") { return false }
        return minorVersion >= 1 || options.contains("keep-alive")
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs (also for ObjectStore's header values).
    package func trimmingASCIISpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
