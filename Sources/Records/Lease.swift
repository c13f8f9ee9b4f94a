/// A lease on one kind of background work (schema version 8): who holds it, until when, and its fencing
/// token, which grows on every change of holder so that a write fenced by an older token is refused.
public struct Lease: Sendable, Equatable {
    /// The work's name (`janitor`, `multipart-janitor`, `reconciler`).
    public let name: String
    /// Who holds it: an id the holding process chose (one per instance).
    public let holder: String
    /// The fencing token: 1 for the first holder, one more on each takeover.
    public let token: Int64
    /// Until when it is held (epoch ms): past it, anyone may take it over.
    public var expiresAtMs: Int64
    /// When this holder took it (epoch ms).
    public let acquiredAtMs: Int64

    /// A lease as stored.
    public init(name: String, holder: String, token: Int64, expiresAtMs: Int64, acquiredAtMs: Int64) {
        self.name = name
        self.holder = holder
        self.token = token
        self.expiresAtMs = expiresAtMs
        self.acquiredAtMs = acquiredAtMs
    }
}
