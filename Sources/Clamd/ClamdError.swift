/// Why clamd gave no verdict: the scan is to be tried again later; never a reason to publish.
public enum ClamdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// clamd could not be reached, or the connection broke (refused, reset, no such socket).
    case unreachable(String)
    /// The scan took longer than its time (`scan.timeoutMs`).
    case timeout(String)
    /// clamd answered something that is no verdict (an `ERROR` line, or bytes of no known shape).
    case protocolError(String)
    /// The bytes to scan could not be read (storage failed while streaming them).
    case source(String)

    /// The case and its detail.
    public var description: String {
        switch self {
        case .unreachable(let detail): "clamd unreachable: \(detail)"
        case .timeout(let detail): "clamd timed out: \(detail)"
        case .protocolError(let detail): "clamd protocol error: \(detail)"
        case .source(let detail): "reading the object failed: \(detail)"
        }
    }
}
