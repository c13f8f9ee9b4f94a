import Crypto

/// The keys that verify tokens, indexed by algorithm, and the rule that picks one for a token.
///
/// Key choice (RFC 7515, section 4.1.4): a token with a `kid` uses the key of its algorithm with
/// that `kid`; if there is none, the one key of its algorithm that has no `kid` (a PEM file, the
/// HS256 secret) when there is exactly one such key; otherwise it is refused. A token without a
/// `kid` uses the key of its algorithm when there is exactly one, and is refused otherwise.
public struct KeySet: Sendable {
    /// Every key, in load order.
    public let keys: [VerificationKey]
    /// Keys that were skipped while loading (unsupported types in a JWKS), one line each, for the start-up log.
    public let notes: [String]
    /// The keys of each algorithm.
    private let byAlgorithm: [JWTAlgorithm: [VerificationKey]]

    /// A set of `keys`; two keys of the same algorithm with the same `kid` are refused.
    public init(keys: [VerificationKey], notes: [String] = []) throws(AuthError) {
        var byAlgorithm: [JWTAlgorithm: [VerificationKey]] = [:]
        for key in keys { byAlgorithm[key.algorithm, default: []].append(key) }
        for (_, group) in byAlgorithm.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            var seen: [String: String] = [:]
            for key in group {
                guard let kid = key.kid else { continue }
                if let first = seen[kid] { throw .duplicateKeyID(kid: kid, sources: [first, key.source]) }
                seen[kid] = key.source
            }
        }
        self.keys = keys
        self.notes = notes
        self.byAlgorithm = byAlgorithm
    }

    /// An empty set: every token is refused.
    public static let empty: KeySet = {
        do { return try KeySet(keys: []) } catch { preconditionFailure("an empty key set has no duplicates") }
    }()

    /// The keys that verify `algorithm`.
    public func keys(for algorithm: JWTAlgorithm) -> [VerificationKey] {
        byAlgorithm[algorithm] ?? []
    }

    /// The one key to try for a token of `algorithm` naming `kid`, or why there is none.
    func key(for algorithm: JWTAlgorithm, kid: String?) -> Result<VerificationKey, AuthFailure> {
        let usable = byAlgorithm[algorithm] ?? []
        guard !usable.isEmpty else { return .failure(AuthFailure(.noKeyForAlgorithm(algorithm))) }
        if let kid {
            if let named = usable.first(where: { $0.kid == kid }) { return .success(named) }
            var unnamed: VerificationKey?
            var unnamedCount = 0
            for key in usable where key.kid == nil {
                unnamed = key
                unnamedCount += 1
            }
            guard unnamedCount == 1, let unnamed else { return .failure(AuthFailure(.unknownKeyID)) }
            return .success(unnamed)
        }
        guard usable.count == 1 else { return .failure(AuthFailure(.ambiguousKey(candidates: usable.count))) }
        return .success(usable[0])
    }
}
