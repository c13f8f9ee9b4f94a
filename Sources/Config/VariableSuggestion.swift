/// The configuration variables a mistyped `PRESIGN_*` name most likely meant, for the problem that
/// reports it ("did you mean PRESIGN_S3_BUCKET?").
///
/// Three rules, the first that finds any wins: a variable whose key part is the same name in another
/// (or no) section (`PRESIGN_BUCKET` → `PRESIGN_S3_BUCKET`, `PRESIGN_PORT` → `PRESIGN_SERVER_PORT`);
/// the variables within a small edit distance (`PRESIGN_S3BUCKET`, `PRESIGN_S3_BUKCET`); the variables
/// holding every word of the name in its order (`PRESIGN_S3_SECRET_KEY` → `PRESIGN_S3_SECRET_ACCESS_KEY`).
/// Letter case is ignored. Pure.
enum VariableSuggestion {
    /// At most this many names are suggested.
    static let maxSuggestions = 3

    /// The known variables closest to `name`, best first (empty when none is close). `sections` are
    /// the sections in upper snake case (`SERVER`, `S3`): a key part is what follows one. A `_FILE`
    /// form is suggested only for a name that ends in `_FILE`.
    static func candidates(for name: String, among allKnown: [String], sections: [String]) -> [String] {
        let prefix = "PRESIGN_"
        let upper = name.uppercased()
        guard upper.hasPrefix(prefix) else { return [] }
        let rest = String(upper.dropFirst(prefix.count))
        guard !rest.isEmpty else { return [] }
        let known = upper.hasSuffix("_FILE") ? allKnown : allKnown.filter { !$0.hasSuffix("_FILE") }
        let sameKey = known.filter { candidate in
            candidate != upper && sections.contains { candidate == prefix + $0 + "_" + rest }
        }
        if !sameKey.isEmpty { return Array(sameKey.sorted().prefix(maxSuggestions)) }
        let limit = max(2, rest.utf8.count / 4)
        var scored: [(name: String, distance: Int)] = []
        for candidate in known where candidate != upper {
            let distance = editDistance(Array(upper.utf8), Array(candidate.utf8))
            if distance <= limit { scored.append((candidate, distance)) }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }
        if !scored.isEmpty { return Array(scored.prefix(maxSuggestions).map(\.name)) }
        let words = rest.split(separator: "_")
        let containing = known.filter { candidate in
            var remaining = candidate.dropFirst(prefix.count).split(separator: "_")[...]
            for word in words {
                guard let found = remaining.firstIndex(of: word) else { return false }
                remaining = remaining[remaining.index(after: found)...]
            }
            return true
        }
        return Array(containing.sorted().prefix(maxSuggestions))
    }

    /// Levenshtein distance (insertions, deletions, substitutions), with adjacent transpositions
    /// counted as one edit (`BUKCET` is one edit from `BUCKET`).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, previousPrevious[j - 2] + 1)
                }
                current[j] = best
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
