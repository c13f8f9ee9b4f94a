import Synchronization

/// The presigner in use, replaced whole when temporary credentials rotate.
///
/// A request takes `current` once and signs everything with that instance, so a URL's access key,
/// session token and signature always come from one set of credentials, even while another thread
/// rotates. Reading holds a `Mutex` only to copy a reference; the new instance is built before the
/// lock is taken, and its signing key is derived on its first use (four HMACs).
public final class RotatingPresigner: Sendable {
    /// The presigner and how many rotations led to it.
    private let state: Mutex<(presigner: Presigner, generation: Int)>

    /// A holder starting with `presigner` (generation 0).
    public init(_ presigner: Presigner) {
        state = Mutex((presigner, 0))
    }

    /// The presigner to sign with now.
    public var current: Presigner { state.withLock { $0.presigner } }

    /// Rotations so far.
    public var generation: Int { state.withLock { $0.generation } }

    /// Replaces the presigner with one for `credentials` (same region, service, endpoint and
    /// addressing); on an error the current one stays.
    public func rotate(to credentials: Credentials) throws(SigV4Error) {
        let next = try current.withCredentials(credentials)
        state.withLock { state in
            state.presigner = next
            state.generation += 1
        }
    }
}
