/// The clock and the source of ids the lifecycle uses, passed in (tests fix them; `presignd` passes
/// the real ones).
public struct UploadEnvironment: Sendable {
    /// Wall-clock milliseconds since the Unix epoch.
    public var nowMillis: @Sendable () -> Int64
    /// A new random lower-case UUID.
    public var newUUID: @Sendable () -> String

    /// An environment from the given sources.
    public init(nowMillis: @escaping @Sendable () -> Int64, newUUID: @escaping @Sendable () -> String) {
        self.nowMillis = nowMillis
        self.newUUID = newUUID
    }
}
