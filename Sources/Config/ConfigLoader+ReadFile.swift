#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ConfigLoader {
    /// Largest file `readFile(atPath:)` reads: config files and secret files are small.
    public static let maxFileBytes = 1 << 20

    /// Reads a whole file (at most `maxFileBytes`), retrying interrupted reads.
    public static func readFile(atPath path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileReadError.cannotOpen(path: path, reason: systemError()) }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileReadError.cannotRead(path: path, reason: systemError())
            }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[..<count])
            if contents.count > maxFileBytes { throw FileReadError.tooLarge(path: path, limit: maxFileBytes) }
        }
    }

    /// The system's text for the current `errno`.
    private static func systemError() -> String {
        String(cString: strerror(errno))
    }
}
