/// Everything that can go wrong in the Records module. Messages never contain a password.
public enum RecordsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database cannot be reached or used right now (connection refused or broken, busy past the
    /// timeout, disk full, shut down); retrying later may work. `/readyz` reports this.
    case unavailable(String)
    /// A constraint was violated (a duplicate id, a value the schema refuses).
    case constraint(String)
    /// The database holds something it should not (an unreadable row, a corrupt file).
    case corrupt(String)
    /// The store URL cannot be used (unknown scheme, empty path, a malformed PostgreSQL URL).
    case invalidURL(String)
    /// An argument is outside what the store accepts (e.g. a list limit outside 1...1000).
    case invalidArgument(String)

    /// The case name and its message.
    public var description: String {
        switch self {
        case .unavailable(let message): return "database unavailable: \(message)"
        case .constraint(let message): return "constraint violated: \(message)"
        case .corrupt(let message): return "database corrupt: \(message)"
        case .invalidURL(let message): return "invalid store URL: \(message)"
        case .invalidArgument(let message): return "invalid argument: \(message)"
        }
    }
}
