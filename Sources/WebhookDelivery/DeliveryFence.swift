import Records

/// What a pass's requests and settlements go through: under the endpoint's lease (the running server),
/// or unfenced (one process, tests).
enum DeliveryFence: Sendable {
    /// Requests start while the lease holds long enough; settlements are fenced by its token.
    case lease(LeasePass)
    /// Always holds; settlements go straight to the store.
    case always

    /// Whether a request that may take `ms` may start now.
    func holds(forAtLeastMs ms: Int64) -> Bool {
        switch self {
        case .lease(let pass): return pass.holds(forAtLeastMs: ms)
        case .always: return true
        }
    }

    /// Whether the pass may go on (the lease not lost, the runner not stopping).
    var holds: Bool {
        switch self {
        case .lease(let pass): return pass.mayContinue
        case .always: return true
        }
    }
}
