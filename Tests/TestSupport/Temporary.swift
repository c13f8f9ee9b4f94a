import Foundation

/// The one maker of the temporary directories and file paths of the tests (records stores, logs,
/// configuration files, keys): under the system's temporary directory, named by a prefix and a fresh
/// UUID, so that no two tests share one.
public enum Temporary {
    /// A new directory `<tmp>/<prefix>-<uuid>`, created (with its parents).
    public static func directory(_ prefix: String = "presignd-test") -> String {
        let path = self.path(prefix)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A path `<tmp>/<prefix>-<uuid><suffix>` that nothing uses yet (not created).
    public static func path(_ prefix: String, suffix: String = "") -> String {
        NSTemporaryDirectory() + prefix + "-" + UUID().uuidString.lowercased() + suffix
    }
}
