/// The `explain` section: the signature explainer's route (`POST /admin/explain`, docs/operations.md).
public struct ExplainConfig: Sendable, Equatable {
    /// Whether the route is served (off by default; callers need an API key with the `admin` scope).
    public var enabled: Bool

    /// Explain settings; every argument defaults to the documented default.
    public init(enabled: Bool = false) {
        self.enabled = enabled
    }
}
