#if canImport(Glibc)
    import Glibc
#endif

/// Reads the small files the providers use (tokens, shared credentials and config files).
public enum CredentialsFileReader {
    /// Largest file read: tokens and profile files are a few kilobytes.
    public static let maxFileBytes = 1 << 20

    /// The whole file at `path` (at most `maxFileBytes`), retrying interrupted reads; a failure is
    /// `.file` with the system's reason (the provider that asked puts its name on it).
    public static func read(path: String) throws(CredentialsError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path, String(cString: strerror(errno)))
            }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[..<count])
            guard contents.count <= maxFileBytes else { throw failure(path, "larger than \(maxFileBytes) bytes") }
        }
    }

    /// The error for `path`.
    private static func failure(_ path: String, _ reason: String) -> CredentialsError {
        .file(provider: "file", path: path, reason: reason)
    }
}
