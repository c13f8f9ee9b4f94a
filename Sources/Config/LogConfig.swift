/// The `log` section.
public struct LogConfig: Sendable, Equatable {
    /// Lowest level written: `debug`, `info`, `warn` or `error`.
    public var level: String
    /// Whether one access-log line is written per request.
    public var accessLog: Bool

    /// Log settings; every argument defaults to the documented default.
    public init(level: String = "info", accessLog: Bool = true) {
        self.level = level
        self.accessLog = accessLog
    }
}
