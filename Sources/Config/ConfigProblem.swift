/// One thing wrong with the configuration, tied to the key (or flag, or variable) it concerns.
///
/// Messages never contain a secret's value.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    /// Where: a key path such as `server.port`, a flag such as `--port`, or a variable name.
    public var keyPath: String
    /// What is wrong, e.g. `must be 1...65535 (got 70000)`.
    public var message: String

    /// A problem at `keyPath`.
    public init(keyPath: String, message: String) {
        self.keyPath = keyPath
        self.message = message
    }

    /// `keyPath: message`.
    public var description: String { "\(keyPath): \(message)" }
}
