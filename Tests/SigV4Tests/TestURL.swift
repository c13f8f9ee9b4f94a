/// A URL taken apart the way client P does it: split at `?`, pairs split at `&`, then at `=`.
struct TestURL: Equatable {
    /// Everything before `?`: scheme, authority and path.
    let base: String
    /// The query pairs in URL order, values left encoded.
    let pairs: [Pair]

    /// One `name=value` pair.
    struct Pair: Hashable {
        let name: String
        let value: String
        /// The number of `=` in the raw pair (client P needs exactly one).
        let equalsSigns: Int
    }

    /// Splits `url`.
    init(_ url: String) {
        let halves = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        base = String(halves[0])
        let query = halves.count > 1 ? String(halves[1]) : ""
        pairs = query.split(separator: "&").map { raw in
            let parts = raw.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return Pair(
                name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "",
                equalsSigns: raw.filter { $0 == "=" }.count)
        }
    }

    /// The names in URL order.
    var names: [String] { pairs.map(\.name) }

    /// The value of `name`, if present.
    func value(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// The pairs as a set (botocore orders them differently).
    var pairSet: Set<Pair> { Set(pairs) }
}
