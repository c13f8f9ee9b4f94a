/// The level of a log line, lowest first: a sink writes the lines at its `minimumLevel` or above.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    /// Detail for debugging.
    case debug
    /// Normal events: start, stop, refused credentials, each request of the access log.
    case info
    /// Something an operator should look at (readiness lost, a skipped key).
    case warn
    /// A failure (a part cannot start, intents not stored).
    case error

    /// The order of the levels: debug < info < warn < error.
    @inlinable
    public var rank: Int {
        switch self {
        case .debug: return 0
        case .info: return 1
        case .warn: return 2
        case .error: return 3
        }
    }

    /// True when `lhs` is less severe than `rhs`.
    @inlinable
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
