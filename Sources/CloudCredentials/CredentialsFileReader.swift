import System

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the small files the providers use (tokens, shared credentials and config files).
public enum CredentialsFileReader {
    /// Largest file read: tokens and profile files are a few kilobytes.
    public static let maxFileBytes = 1 << 20

    /// The reason `read(path:)` gives for a file that does not exist (the system's text for `ENOENT`):
    /// the shared files provider skips such a file, as the AWS SDKs and CLI do.
    public static let missingFileReason = String(cString: strerror(ENOENT))

    /// The whole file at `path` (at most `maxFileBytes`, through System's `FileReader`); a failure is
    /// `.file` with the system's reason (the provider that asked puts its name on it).
    public static func read(path: String) throws(CredentialsError) -> [UInt8] {
        do {
            return try FileReader.readAll(atPath: path, limit: maxFileBytes)
        } catch {
            throw .file(provider: "file", path: path, reason: error.description)
        }
    }
}
