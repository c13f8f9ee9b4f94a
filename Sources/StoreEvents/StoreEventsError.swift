/// Everything that can go wrong in the StoreEvents module, each with what the events endpoint answers.
public enum StoreEventsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body is not JSON, or not the JSON of this kind of delivery (400).
    case malformed(String)
    /// The body is larger than the limit (413).
    case tooLarge(bytes: Int, limit: Int)
    /// The delivery does not prove who sent it: a missing or wrong token, a bad SNS signature, a signing
    /// certificate from a host or scheme not allowed (401). The reason never holds a secret.
    case unauthenticated(String)
    /// The signing certificate could not be had (its fetch failed, or it is not a usable certificate):
    /// the endpoint answers 503 so that SNS delivers again later.
    case certificateUnavailable(String)

    /// The case and its context.
    public var description: String {
        switch self {
        case .malformed(let detail): return "malformed event: \(detail)"
        case .tooLarge(let bytes, let limit): return "event body of \(bytes) bytes is over the limit of \(limit)"
        case .unauthenticated(let detail): return "unauthenticated event: \(detail)"
        case .certificateUnavailable(let detail): return "signing certificate unavailable: \(detail)"
        }
    }
}
