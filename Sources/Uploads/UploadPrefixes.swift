import Config

/// The literal key prefixes of the upload types' key templates (`delete/profile/`, …; `""` for a
/// template that starts with a variable, such as the default `{imageKey}`): where uploads land, what the
/// reconciler lists and what `presignd notifications setup` subscribes to.
public enum UploadPrefixes {
    /// The literal prefixes of `types`' key templates, minimal (none covered by another) and sorted.
    public static func of(_ types: [UploadTypeConfig]) -> [String] {
        minimal(types.compactMap { KeyTemplate($0.keyTemplate)?.literalPrefix })
    }

    /// `prefixes` without any that another one covers (`""` covers all), sorted.
    public static func minimal(_ prefixes: [String]) -> [String] {
        let sorted = Set(prefixes).sorted()
        var out: [String] = []
        for p in sorted where !out.contains(where: { p.hasPrefix($0) }) { out.append(p) }
        return out
    }
}
