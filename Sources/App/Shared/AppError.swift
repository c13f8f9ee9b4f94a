/// Errors that stop the application from starting.
public enum AppError: Error, Sendable, CustomStringConvertible {
    /// A configuration value that cannot be used (key path).
    case configuration(String)
    /// A part could not be set up (which part, why; never a secret).
    case startup(String, String)
    /// The configuration cannot work with what start-up found (which part, why): exit 2, as for a
    /// configuration problem (client P's routes with credentials that carry a session token, or no
    /// credential source configured at all).
    case refused(String, String)

    /// The exit status `presignd` ends with: 2 for `refused`, 1 otherwise.
    public var exitCode: Int32 {
        if case .refused = self { return 2 }
        return 1
    }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .configuration(let key): return "\(key): invalid value"
        case .startup(let part, let why), .refused(let part, let why): return "\(part): \(why)"
        }
    }
}
