/// Errors that stop the application from starting.
public enum AppError: Error, Sendable, CustomStringConvertible {
    /// A configuration value that cannot be used (key path).
    case configuration(String)
    /// A part could not be set up (which part, why; never a secret).
    case startup(String, String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .configuration(let key): return "\(key): invalid value"
        case .startup(let part, let why): return "\(part): \(why)"
        }
    }
}
