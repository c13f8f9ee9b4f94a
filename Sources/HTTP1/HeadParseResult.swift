/// The outcome of parsing a request head from the bytes received so far.
public enum HeadParseResult: Sendable, Equatable {
    /// More bytes are needed; nothing is wrong yet.
    case incomplete
    /// A full, valid head; `consumed` bytes (leading CRLF included) belong to it, the body follows.
    case complete(RequestHead, consumed: Int)
    /// The bytes can never form a valid head; answer `error.status` and close.
    case failure(ParseError)
}
