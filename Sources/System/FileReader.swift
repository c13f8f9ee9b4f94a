#if canImport(Glibc)
    import Glibc
#endif

/// Reads small whole files (configuration, keys, secrets, `/proc` and cgroup files) without Foundation.
public enum FileReader {
    /// The default largest file: configuration and secret files are small.
    public static let defaultLimit = 1 << 20

    /// The whole file at `path`, at most `limit` bytes (a file of exactly `limit` bytes is read), retrying
    /// interrupted opens and reads.
    public static func readAll(atPath path: String, limit: Int = defaultLimit) throws(FileReadError) -> [UInt8] {
        var descriptor: Int32
        repeat { descriptor = open(path, O_RDONLY | O_CLOEXEC) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: systemError()) }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: path, reason: systemError())
            }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[..<count])
            if contents.count > limit { throw .tooLarge(path: path, limit: limit) }
        }
    }

    /// The system's text for the current `errno`.
    private static func systemError() -> String {
        String(cString: strerror(errno))
    }
}
