/// How a response body is delimited (RFC 9112 section 6.3). Pure.
enum BodyFraming: Equatable {
    /// No body: a response to HEAD, a 1xx, 204 or 304.
    case none
    /// Exactly this many bytes.
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// Everything until the server closes the connection.
    case untilClose

    /// The framing of `head`, a response to a HEAD request when `toHead`.
    static func of(_ head: ResponseHead, toHead: Bool) throws(HTTPClientError) -> BodyFraming {
        if toHead || head.status < 200 || head.status == 204 || head.status == 304 { return .none }
        let codings = head.values("transfer-encoding").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingASCIISpaces().lowercased() }.filter { !$0.isEmpty }
        if !codings.isEmpty {
            // Only "chunked" is ever asked for (no TE or Accept-Encoding is sent).
            guard codings == ["chunked"] else {
                throw .malformedResponse("unsupported transfer coding \(codings.joined(separator: ", "))")
            }
            return .chunked
        }
        let lengths = head.values("content-length").flatMap { $0.split(separator: ",") }.map {
            $0.trimmingASCIISpaces()
        }
        guard let first = lengths.first else { return .untilClose }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.count <= 18,
            first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(first)
        else { throw .malformedResponse("invalid Content-Length") }
        return .length(length)
    }
}
