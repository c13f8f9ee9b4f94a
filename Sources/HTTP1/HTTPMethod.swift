/// The request methods the server knows (RFC 9110 §9 plus PATCH); other tokens parse with `method == nil`.
public enum HTTPMethod: Sendable, Hashable, CaseIterable {
    case GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE, CONNECT

    /// The method token as sent on the wire (methods are case-sensitive).
    public var name: String {
        switch self {
        case .GET: return "GET"
        case .HEAD: return "HEAD"
        case .POST: return "POST"
        case .PUT: return "PUT"
        case .DELETE: return "DELETE"
        case .PATCH: return "PATCH"
        case .OPTIONS: return "OPTIONS"
        case .TRACE: return "TRACE"
        case .CONNECT: return "CONNECT"
        }
    }

    /// Recognises a method token exactly (case-sensitive), or returns nil.
    public init?(name: String) {
        guard let method = HTTPMethod.allCases.first(where: { $0.name == name }) else { return nil }
        self = method
    }

    /// Recognises the method token at `bytes[start..<end]` without creating a String.
    @inline(__always)
    static func recognise(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> HTTPMethod? {
        @inline(__always) func matches(_ literal: StaticString) -> Bool {
            guard end &- start == literal.utf8CodeUnitCount else { return false }
            let expected = literal.utf8Start
            for k in 0..<(end &- start) where bytes[start &+ k] != expected[k] {
                return false
            }
            return true
        }
        switch end &- start {
        case 3: return matches("GET") ? .GET : matches("PUT") ? .PUT : nil
        case 4: return matches("POST") ? .POST : matches("HEAD") ? .HEAD : nil
        case 5: return matches("PATCH") ? .PATCH : matches("TRACE") ? .TRACE : nil
        case 6: return matches("DELETE") ? .DELETE : nil
        case 7: return matches("OPTIONS") ? .OPTIONS : matches("CONNECT") ? .CONNECT : nil
        default: return nil
        }
    }
}
